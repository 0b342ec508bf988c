"""An agent's answer as the SSE lines AgentCore's app writes for it (one ``data:`` line per event, then a
blank one): what the readers of that stream (the agent's own, the CLIs' smoke test and recording) are fed
in tests without an agent behind them."""

from __future__ import annotations

import json

from voice_agent.events import AgentEvent, to_wire


def sse(*events: AgentEvent) -> list[str]:
    return [line for event in events for line in (f"data: {json.dumps(to_wire(event))}", "")]
