"""Deploying a stack: from the user's options to a stack that CloudFormation reports complete.

The options and their validation (the stacks' own), the exact `cdk` command lines, the prerequisites
checked before anything slow, the steps both deploy flows share, and each CLI's flow. A deploy ends with
the checks of :mod:`kokoro_cli.checks`: a stack is only "deployed" when the deployable answered.
"""
