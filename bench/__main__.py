"""``python -m bench`` runs the benchmark; ``python -m bench soak`` the endurance run; ``python -m bench
report`` renders docs/benchmark.md from the results file."""

import sys

if sys.argv[1:2] == ["soak"]:
    from bench.soak_cli import main
elif sys.argv[1:2] == ["report"]:
    from bench.docs_report import main
else:
    from bench.cli import main

if sys.argv[1:2] in (["soak"], ["report"]):
    del sys.argv[1]
main()
