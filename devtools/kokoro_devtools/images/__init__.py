"""The two images built and run on this machine from their own Dockerfiles, without a Docker engine.

``python -m kokoro_devtools.images build model|agent`` builds ``container/Dockerfile`` or
``agent/Dockerfile`` unchanged with buildah; ``run model|agent`` serves one as SageMaker or AgentCore would
start it. The base images their ``FROM`` lines name cannot be pulled here (no container registry), so
:mod:`.bases` makes stand-ins from Debian bookworm packages, tagged with those names. Why and how, with the
measurements: docs/decisions/159-images-built-here.md.
"""
