"""Where the test suite's time goes: a pytest plugin that measures each test file's wall and CPU seconds
(:mod:`.measure`), and the page that shows them (:mod:`.page`, ``python -m kokoro_devtools.suite_costs``).

``./test.sh --cost-map`` runs the whole suite with the plugin and writes ``tests/costs.json`` and
``docs/test-costs.md`` (docs/decisions/095-test-markers.md)."""
