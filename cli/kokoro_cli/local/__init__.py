"""The model server and the voice agent run on this machine, without AWS.

``deploy-model local``'s server, ``deploy-agent local`` (the agent against a local model server or an
endpoint's stream), ``deploy-agent invoke`` (one question, the answer recorded as ``answer.wav`` and
``report.json``) and the conversation page (``web/``) that ``local --web`` and ``web`` serve.
"""
