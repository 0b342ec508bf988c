"""The G2P process pool on its own: real worker processes, killed by pid. A dead worker is replaced and
its slice read again; two deaths on one slice, or a fault inside misaki, give ``G2PFailed``
(``g2p_failed``) and the pool goes on (docs/decisions/130-fair-g2p-slices.md)."""

from __future__ import annotations

import importlib.util
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from kokoro_server.text.g2p_pool import G2PFailed, G2PPool, default_workers
from kokoro_server.text.phonemes import Phonemizer

TEXT = "The quick brown fox read the letter to Dr. Smith."


@pytest.fixture(scope="module")
def pool():
    pool = G2PPool(1)
    pool.wait_ready()
    yield pool
    pool.close()


def test_a_worker_without_torch_reads_as_misaki_with_torch_does(pool: G2PPool, phonemizer: Phonemizer) -> None:
    """The worker blocks torch and spaCy's entry points (decision 141); this process has both loaded."""
    assert pool.read(TEXT, "a") == phonemizer.read(TEXT, "a")


def test_a_worker_loads_no_torch(pool: G2PPool) -> None:
    """torch is installed here (the torch engine's tests use it), yet a worker never maps it: G2P is spaCy on
    numpy (docs/decisions/141-g2p-workers-without-torch.md)."""
    assert importlib.util.find_spec("torch") is not None
    (pid,) = pool.pids
    mapped = Path(f"/proc/{pid}/maps").read_text()  # every shared object the process loaded, by path
    assert "/site-packages/spacy/" in mapped and "/site-packages/torch/" not in mapped


def test_a_killed_worker_is_replaced_and_the_slice_read_again(pool: G2PPool) -> None:
    (pid,) = pool.pids
    replaced = pool.replaced
    os.kill(pid, signal.SIGKILL)
    assert pool.read(TEXT, "a")
    assert pool.replaced == replaced + 1 and pid not in pool.pids


def test_a_slice_whose_worker_dies_twice_gets_g2p_failed_and_the_pool_goes_on(pool: G2PPool) -> None:
    (first,) = pool.pids
    os.kill(first, signal.SIGKILL)
    outcome: list[object] = []

    def read() -> None:
        try:
            outcome.append(pool.read(TEXT, "a"))
        except G2PFailed as exc:
            outcome.append(exc)

    reader = threading.Thread(target=read)
    reader.start()
    while first in pool.pids:  # the replacement starts; kill it while it loads G2P (seconds)
        time.sleep(0.005)
    os.kill(pool.pids[0], signal.SIGKILL)
    reader.join(120)
    assert isinstance(outcome[0], G2PFailed)
    assert pool.read(TEXT, "a")  # a third worker serves the next slice


def test_a_fault_inside_misaki_fails_that_text_only(pool: G2PPool) -> None:
    replaced = pool.replaced
    with pytest.raises(G2PFailed, match="KeyError"):
        pool.read(TEXT, "zz")  # no G2P for this language: misaki's own KeyError, in the worker
    assert pool.replaced == replaced and pool.read(TEXT, "a")


def test_close_ends_every_worker() -> None:
    pool = G2PPool(2)
    pids = pool.pids
    pool.close()
    assert len(pids) == 2 and not [pid for pid in pids if Path(f"/proc/{pid}").exists()]


@pytest.mark.parametrize(("cores", "workers"), [(1, 1), (2, 1), (4, 2), (8, 4), (192, 4)])
def test_the_default_is_half_the_cores_from_one_to_four(cores: int, workers: int) -> None:
    assert default_workers(cores) == workers
