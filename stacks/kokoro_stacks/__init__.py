"""The two CDK stacks, grouped by deployable: ``model/`` (the SageMaker endpoint), ``agent/`` (the AgentCore
runtime); ``settings/`` (every context key, validated, without the CDK: the CLIs import it too); and what both
stacks share: ``deployment`` (the app), ``project`` (paths, node), ``template_checks`` (cdk-nag, cfn-lint),
``ecr_pull``."""
