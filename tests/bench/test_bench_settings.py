"""Benchmark options: every bad value is refused up front, with the option's name, before a server starts."""

from __future__ import annotations

import math

import pytest
from servers import free_port
from typer.testing import CliRunner

from kokoro_bench.app import app
from kokoro_bench.errors import BenchError
from kokoro_bench.settings import QUICK, BenchSettings, int_list, name_list, with_options


@pytest.mark.parametrize(
    "options, option_name",
    [
        ({"texts": ()}, "--texts"),
        ({"texts": ("short", "medium")}, "--texts"),
        ({"texts": ("../../etc/passwd",)}, "--texts"),
        ({"concurrency_text": "huge"}, "--concurrency-text"),
        ({"tokens_per_s": 0}, "--tokens-per-s"),
        ({"tokens_per_s": -40}, "--tokens-per-s"),
        ({"tokens_per_s": math.nan}, "--tokens-per-s"),
        ({"tokens_per_s": math.inf}, "--tokens-per-s"),
        ({"tokens_per_s": 1e9}, "--tokens-per-s"),
        ({"voice": "   "}, "--voice"),
        ({"voice": "af_" + "x" * 500}, "--voice"),
        ({"repeats": 0}, "--repeats"),
        ({"repeats": 10_000}, "--repeats"),
        ({"concurrency": (0,)}, "--concurrency"),
        ({"concurrency": (1, 1)}, "--concurrency"),
        ({"concurrency": (10**6,)}, "--concurrency"),
        ({"sweep_words": (0,)}, "--sweep-words"),
        ({"stagger_s": -1.0}, "--stagger-s"),
        ({"stagger_s": math.nan}, "--stagger-s"),
        ({"engine": "tensorrt"}, "--engine"),
        ({"device": "tpu"}, "--device"),
        ({"server_url": "javascript:alert(1)"}, "--server-url"),
        ({"server_url": "http://"}, "--server-url"),
        ({"server_url": "ftp://127.0.0.1:21"}, "--server-url"),
    ],
)
def test_bad_settings_name_the_option(options, option_name) -> None:
    with pytest.raises(BenchError, match=option_name):
        BenchSettings(**options)


def test_the_quick_preset_keeps_every_figure_but_shrinks_the_work() -> None:
    full = BenchSettings()
    assert QUICK.texts == ("short",) and set(QUICK.concurrency) < set(full.concurrency)
    assert QUICK.sweep_words == () and full.sweep_words
    assert with_options(QUICK, repeats=None, tokens_per_s=20.0).tokens_per_s == 20.0


@pytest.mark.parametrize("raw, parsed", [("1,2,4,8", (1, 2, 4, 8)), (" 1 , 2 ", (1, 2)), ("", ()), ("3,,", (3,))])
def test_number_lists(raw, parsed) -> None:
    assert int_list("--concurrency", raw) == parsed


@pytest.mark.parametrize("raw", ["1;2", "one,two", "1.5", "2e3x", "1," * 200, "\x00"])
def test_malformed_number_lists_are_refused(raw) -> None:
    with pytest.raises(BenchError, match="--concurrency"):
        int_list("--concurrency", raw)


def test_name_lists_drop_blanks_and_refuse_floods() -> None:
    assert name_list("--texts", "short, long,") == ("short", "long")
    with pytest.raises(BenchError, match="too long"):
        name_list("--texts", "short," * 100)


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--texts", "short,epic"], "--texts"),
        (["--concurrency", "1,a"], "--concurrency"),
        (["--tokens-per-s", "0"], "--tokens-per-s"),
        (["--server-url", "not a url"], "--server-url"),
        (["interrupt", "--rounds", "0"], "--rounds"),  # a study refuses its options as the run does
    ],
)
def test_the_cli_exits_2_with_one_line_before_starting_anything(args, needle) -> None:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert needle in result.output and "Traceback" not in result.output


def test_a_server_url_with_nothing_behind_it_is_refused() -> None:
    result = CliRunner().invoke(app, ["--quick", "--server-url", f"http://127.0.0.1:{free_port()}"])
    assert result.exit_code == 2
    assert "no warm model server" in result.output
