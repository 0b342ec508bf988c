"""Against the real model server: a voice it lacks ends the run at once with one line, not a traceback."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from kokoro_bench.app import app


@pytest.mark.parametrize("voice", ["zz_nobody", "af_heart(2)+", "<script>alert(1)</script>", "ü" * 100])
def test_an_unknown_or_malformed_voice_is_refused_before_any_figure(model_server_url: str, voice: str) -> None:
    result = CliRunner().invoke(app, ["--quick", "--server-url", model_server_url, "--voice", voice])
    assert result.exit_code == 2, result.output
    assert "--voice" in result.output and "Traceback" not in result.output
    assert "per text and strategy" not in result.output
