"""The deployment settings: every CDK context key, read and validated into one frozen object.

Standard library only (no ``aws_cdk``), so the deploy CLIs validate their options with the same code, fast.
"""
