"""``python -m bench`` runs the benchmark; ``python -m bench soak`` the endurance run; ``python -m bench
report`` renders docs/benchmark.md from the results file; ``python -m bench policy`` the first-piece policy
across real-time factors, from the speech model; ``python -m bench pieces`` the render time of a short and
a long piece and the edge silence decoded with it."""

import sys

if sys.argv[1:2] == ["soak"]:
    from bench.soak_cli import main
elif sys.argv[1:2] == ["report"]:
    from bench.docs_report import main
elif sys.argv[1:2] == ["policy"]:
    from bench.policy_sweep import main
elif sys.argv[1:2] == ["pieces"]:
    from bench.piece_render import main
else:
    from bench.cli import main

if sys.argv[1:2] in (["soak"], ["report"], ["policy"], ["pieces"]):
    del sys.argv[1]
main()
