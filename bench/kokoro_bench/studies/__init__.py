"""The benchmark's studies: each answers one question with a measure function, a results file, and the table a
page or a decision record shows (``python -m kokoro_bench <study> --help``)."""
