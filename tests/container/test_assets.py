"""The asset resolver: explicit paths first, pinned hashes, and one clear error with the fix."""

from __future__ import annotations

import re
import shutil

import pytest

from kokoro_server import assets as model_assets
from kokoro_server.assets import AssetError


def test_offline_set_resolves_and_is_verified():
    resolved = model_assets.resolve("onnx")
    assert resolved.onnx_model.name == "kokoro-v1.0.int8.timed.onnx"  # the int8 model, durations exposed
    assert len(resolved.voices) == 54
    assert resolved.load_voice("af_heart").shape == (510, 1, 256)
    assert resolved.vocab()["a"] > 0


def test_missing_weights_name_file_hash_and_fix(tmp_path):
    shutil.copytree(model_assets.REPO_ASSETS / "voices", tmp_path / "voices")
    with pytest.raises(AssetError) as info:
        model_assets.resolve("onnx", assets_dir=tmp_path)
    message = str(info.value)
    assert "kokoro-v1.0.int8.timed.onnx" in message and "missing" in message
    assert model_assets.manifest()["onnx_timed"]["sha256"] in message
    assert f"offline_assets build --dest {tmp_path}" in message  # this folder's set, not the repository's


def test_corrupt_voice_is_caught(tmp_path):
    shutil.copytree(model_assets.REPO_ASSETS / "voices", tmp_path / "voices")
    (tmp_path / "voices" / "af_heart.bin").write_bytes(b"\0" * 16)
    with pytest.raises(AssetError, match=r"af_heart\.bin: file is corrupt"):
        model_assets.resolve("onnx", assets_dir=tmp_path)


def test_explicit_paths_win(tmp_path):
    voices = tmp_path / "v"
    voices.mkdir()
    shutil.copy(model_assets.REPO_ASSETS / "voices" / "bf_emma.bin", voices)
    resolved = model_assets.resolve(
        "onnx", voices_dir=voices, onnx_model=model_assets.REPO_ASSETS / model_assets.ONNX_FILE
    )
    assert list(resolved.voices) == ["bf_emma"]


def test_explicit_missing_file_is_named(tmp_path):
    with pytest.raises(AssetError, match="nope.onnx: file is missing"):
        model_assets.resolve("onnx", onnx_model=tmp_path / "nope.onnx")


def test_torch_weights_outside_image_point_at_the_rebuilt_weights(tmp_path):
    shutil.copytree(model_assets.REPO_ASSETS / "voices", tmp_path / "voices")
    with pytest.raises(AssetError, match="kokoro-v1_0.pth: file is missing.*496dba11.*kokoro_devtools.torch_weights"):
        model_assets.resolve("torch", assets_dir=tmp_path)


def test_an_assets_dir_that_does_not_exist_is_not_replaced_by_the_repositorys(tmp_path):
    with pytest.raises(AssetError, match=f"Fix: .*offline_assets build --dest {tmp_path / 'none'}$"):
        model_assets.resolve("onnx", assets_dir=tmp_path / "none")


@pytest.mark.parametrize(
    ("given", "option"),
    [
        ({"voices_dir": "voices"}, "--voices-dir (KOKORO_VOICES_DIR)"),
        ({"onnx_model": "nope.onnx"}, "--onnx-model (KOKORO_ONNX_MODEL)"),
        ({"config": "nope.json"}, "--config (KOKORO_CONFIG)"),
    ],
)
def test_a_wrong_explicit_path_is_the_users_to_correct(tmp_path, given, option):
    with pytest.raises(AssetError, match=f"Fix: correct {re.escape(option)}, or leave it unset"):
        model_assets.resolve("onnx", **{key: tmp_path / value for key, value in given.items()})


def test_unknown_engine():
    with pytest.raises(ValueError, match="unknown engine"):
        model_assets.resolve("tensorflow")
