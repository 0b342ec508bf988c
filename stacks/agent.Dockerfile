# The voice agent as an arm64 image (agent_artifact=container): what the code zip holds, as a container.
# Build context: the repository root, narrowed by the stack to agent/, the protocol module and this file.
FROM public.ecr.aws/docker/library/python:3.12-slim

ENV PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 DOCKER_CONTAINER=1
WORKDIR /app
COPY agent/requirements.txt ./requirements.txt
RUN pip install -r requirements.txt
COPY agent/ ./
COPY container/kokoro_server/protocol.py ./kokoro_server/protocol.py
RUN touch kokoro_server/__init__.py && useradd --system --uid 10001 agent
USER agent
EXPOSE 8080
HEALTHCHECK CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8080/ping', timeout=2)"
CMD ["python", "main.py"]
