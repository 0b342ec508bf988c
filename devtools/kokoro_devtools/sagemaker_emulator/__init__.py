"""A local stand-in for SageMaker's bidirectional stream, bridged to a real model container.

The agent's SageMaker transport and ``deploy-model smoke`` speak to it with the real
``aws-sdk-sagemaker-runtime-http2`` client: TLS with ALPN ``h2`` (a throwaway CA the client trusts),
event-stream framing with signed envelopes in and unsigned payload parts out, each request part
becoming one WebSocket frame on the container's ``/invocations-bidirectional-stream`` (TEXT for
``DataType=UTF8``, BINARY otherwise). The wire facts it follows are in
``docs/decisions/030-sagemaker-stream-wire.md``.

    python -m kokoro_devtools.sagemaker_emulator --port 8443 --container http://127.0.0.1:8090
"""
