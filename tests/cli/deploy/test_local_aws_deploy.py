"""`deploy-model` then `deploy-agent` one-shot against the local AWS, end to end: no account, nothing faked but AWS.

``python -m kokoro_devtools.local_aws`` is moto with AgentCore runtimes that run (the agent's bundle started as the
template says, behind the AgentCore emulator) and the SageMaker emulator in front of a real model server. The
deploy steps of the documented CI job (docs/deploy.md) run as written, in a copy of the repository, with the local
AWS's variables where the job has its credentials: the model stack with its smoke test through the SageMaker
emulator, then the agent stack, whose one-shot verification is a spoken answer; then ``outputs``, ``invoke``
(heard), ``smoke`` and ``destroy`` of both, after which nothing is left.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import wave
from pathlib import Path

from emulator import local_aws
from local_aws_cli import IMAGE, REGION, TIMEOUT_S, caller, cli, client
from repo_copy import REPO, copy_repo
from speech import assert_heard

from kokoro_stacks.agent.bundle_cache import CACHE_VARIABLE
from voice_agent.settings import DEFAULT_SCRIPTED_REPLY

JOB_STEP = re.compile(r"^\s+- run: (.+?)(?:\s+#.*)?$", re.M)


def ask(env: dict[str, str], tmp_path: Path, arn: str, out: str) -> subprocess.CompletedProcess:
    """``deploy-agent invoke <ARN>``, its answer into ``tmp_path / out``."""
    return cli(
        env, tmp_path / "cdk.out", "deploy-agent", "invoke", arn, "--prompt", "Hello?", "--out", str(tmp_path / out)
    )


def runner_env(env: dict[str, str]) -> dict[str, str]:
    """A CI runner's shell: none of this suite's environments on PATH or on the import path, and no agent
    bundle cache: the job's deploy-only environment bundles the agent itself."""
    unset = ("PYTHONPATH", "VIRTUAL_ENV", CACHE_VARIABLE)
    shell = {name: value for name, value in env.items() if name not in unset}
    folders = [folder for folder in env["PATH"].split(os.pathsep) if not folder.startswith(str(REPO))]
    return shell | {"PATH": os.pathsep.join(folders)}


def ci_job_steps() -> list[str]:
    """The ``run:`` steps of the example CI job (docs/deploy.md): its set-up, then its deploys."""
    page = (REPO / "docs" / "deploy.md").read_text()
    job = page[page.index("## Example CI job") :].split("```yaml", 1)[1].split("```", 1)[0]
    steps = JOB_STEP.findall(job)
    assert steps[0] == "./setup.sh --deploy" and len(steps) == 3, steps
    return steps


def test_the_ci_job_as_written_deploys_speaks_and_both_stacks_are_destroyed(model_server_url, tmp_path) -> None:
    """The job's steps in a fresh checkout (its own deploy-only set-up, from the package registries), with the
    local AWS's variables where the job has its credentials."""
    checkout = copy_repo(tmp_path / "checkout", link_environments=False)
    with local_aws("--model-server", model_server_url) as aws:
        env = caller(aws)
        cdk = [str(REPO / "node_modules" / ".bin" / "cdk"), "bootstrap", f"aws://123456789012/{REGION}"]
        bootstrap = subprocess.run(cdk, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
        assert bootstrap.returncode == 0, bootstrap.stderr[-3000:]  # the job's account is bootstrapped already
        job_env = runner_env(env) | {"CI": "true", "AWS_REGION": REGION, "MODEL_IMAGE_URI": IMAGE}  # the job's env
        for step in ci_job_steps():
            done = subprocess.run(
                ["bash", "-c", step], cwd=checkout, env=job_env, capture_output=True, text=True, timeout=TIMEOUT_S
            )
            assert done.returncode == 0, f"{step}\n{done.stdout[-2000:]}{done.stderr[-5000:]}"
        assert not (checkout / "assets").exists() and not (checkout / ".venv-clients").exists()  # deploying only
        model, agent = (json.loads((checkout / name).read_text()) for name in ("model.json", "agent.json"))
        assert [check["outcome"] for check in model["smoke"]["checks"]] == ["passed", "passed"]  # via the emulator
        arn = agent["runtime_arn"]
        outputs = cli(env, tmp_path / "cdk.out", "deploy-agent", "--json", "outputs")
        assert json.loads(outputs.stdout)["outputs"]["RuntimeArn"] == arn
        invoke = ask(env, tmp_path, arn, "answer")
        assert invoke.returncode == 0, invoke.stdout + invoke.stderr
        with wave.open(str(tmp_path / "answer" / "answer.wav")) as wav:
            assert_heard(
                wav.readframes(wav.getnframes()), wav.getframerate(), DEFAULT_SCRIPTED_REPLY
            )  # no Bedrock here
        for given in ((), ("--runtime-arn", arn)):  # the runtime from the stack's outputs, then by its ARN
            smoke = cli(env, tmp_path / "cdk.out", "deploy-agent", "smoke", *given)
            assert smoke.returncode == 0 and "PASSED" in smoke.stdout + smoke.stderr, smoke.stdout + smoke.stderr
        for tool in ("deploy-agent", "deploy-model"):
            destroyed = cli(env, tmp_path / "cdk.out", tool, "--yes", "destroy")
            assert destroyed.returncode == 0, destroyed.stdout + destroyed.stderr
        assert client(env, "bedrock-agentcore-control").list_agent_runtimes()["agentRuntimes"] == []
        stacks = client(env, "cloudformation").list_stacks()["StackSummaries"]
        assert {s["StackName"]: s["StackStatus"] for s in stacks if s["StackName"] != "CDKToolkit"} == {
            "KokoroVoiceAgent": "DELETE_COMPLETE",
            "KokoroTtsModel": "DELETE_COMPLETE",
        }
        gone = ask(env, tmp_path, arn, "gone")
        assert gone.returncode == 1 and "ResourceNotFoundException" in gone.stderr, gone.stderr
