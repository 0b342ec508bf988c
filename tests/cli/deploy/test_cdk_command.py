"""The `cdk` command lines the CLIs run: pure functions, checked without a subprocess."""

from __future__ import annotations

import shlex
from dataclasses import replace

from kokoro_cli.deploy import cdk_command
from kokoro_cli.deploy.cdk_command import CdkTarget
from kokoro_stacks.project import PROJECT_NODE

TARGET = CdkTarget(context={"voice": "af_heart", "engine": "onnx"}, region="eu-west-1", cdk_bin="/x/cdk")


def test_synth_passes_context_sorted_and_runs_offline():
    call = cdk_command.synth(TARGET, "KokoroTtsModel", "/tmp/out")
    assert call.argv == (
        "/x/cdk",
        "synth",
        "KokoroTtsModel",
        "--exclusively",
        "-c",
        "engine=onnx",
        "-c",
        "voice=af_heart",
        "--output",
        "/tmp/out",
        "--quiet",
    )
    assert call.env["AWS_REGION"] == call.env["AWS_DEFAULT_REGION"] == "eu-west-1"
    assert call.env["AWS_EC2_METADATA_DISABLED"] == "true"
    assert "CDK_DEFAULT_REGION" not in call.env  # the CLI overwrites it (007-cdk-cli-environment.md)


def test_deploy_flags_follow_approval_and_attendance():
    attended = cdk_command.deploy(TARGET, "S", approve_all=False, outputs_file="o.json")
    assert attended.argv[-2:] == ("--require-approval", "broadening")
    assert "--progress" not in attended.argv and "AWS_EC2_METADATA_DISABLED" not in attended.env
    unattended = cdk_command.deploy(replace(TARGET, unattended=True), "S", approve_all=True, outputs_file="o.json")
    assert unattended.argv[-4:] == ("--require-approval", "never", "--progress", "events")
    direct = cdk_command.deploy(TARGET, "S", approve_all=True, outputs_file="o.json", direct=True)
    assert direct.argv[-2:] == ("--method", "direct")


def test_a_synthesized_assembly_and_a_profile_are_passed_through():
    call = cdk_command.deploy(replace(TARGET, app="/a", profile="dev"), "S", approve_all=True, outputs_file="o")
    assert call.argv[3:6] == ("--exclusively", "--app", "/a")
    assert ("--profile", "dev") == call.argv[call.argv.index("--profile") : call.argv.index("--profile") + 2]


def test_destroy_never_prompts_and_bootstrap_names_the_environment():
    assert cdk_command.destroy(TARGET, "S").argv[-1] == "--force"
    assert cdk_command.bootstrap(TARGET, "123456789012", "eu-west-1").argv[2] == "aws://123456789012/eu-west-1"


def test_diff_destroy_and_bootstrap_synthesize_where_synth_does():
    calls = (
        cdk_command.diff(TARGET, "S", "/out"),
        cdk_command.destroy(TARGET, "S", "/out"),
        cdk_command.bootstrap(TARGET, "123456789012", "eu-west-1", "/out"),
    )
    for call in calls:
        assert call.argv[call.argv.index("--output") + 1] == "/out"
    assert "--output" in cdk_command.diff(TARGET, "S").argv  # the default: the project's cdk.out, as cdk's own


def test_shell_line_quotes_hostile_values_so_it_pastes_back_to_the_same_argv():
    hostile = CdkTarget(context={"voice": "a b; rm -rf / $(id) 'q'"}, cdk_bin="/x/cdk")
    call = cdk_command.synth(hostile, "S", "/out dir")
    line = call.shell()
    assert line.startswith(f"cd {shlex.quote(str(cdk_command.PROJECT_ROOT))} && ")
    words = shlex.split(line.split(" && ", 1)[1])
    assert words[len(call.env) :] == list(call.argv)


def test_template_path_is_under_the_project_root_unless_absolute():
    assert cdk_command.template_path("S", "cdk.out") == cdk_command.PROJECT_ROOT / "cdk.out" / "S.template.json"
    assert str(cdk_command.template_path("S", "/abs")) == "/abs/S.template.json"


def test_the_pinned_cdk_runs_on_the_pinned_node_and_another_cdk_as_it_is():
    pinned = cdk_command.synth(replace(TARGET, cdk_bin=str(cdk_command.PINNED_CDK)), "S")
    assert pinned.argv[:3] == (str(PROJECT_NODE), str(cdk_command.PINNED_CDK), "synth")
    assert cdk_command.synth(TARGET, "S").argv[:2] == ("/x/cdk", "synth")
