"""The two CDK stacks (model endpoint, voice agent), their settings and the constructs they compose."""
