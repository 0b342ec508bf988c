"""The ways a client reaches a model server's speech session, beside each other behind one seam.

* :mod:`speech_protocol.transports.part_stream`: the seam (``PartStream``, ``Connector``) every transport
  implements and :class:`speech_protocol.tts_session.TtsSession` drives;
* :mod:`speech_protocol.transports.websocket`: straight to a server's WebSocket (the ``websocket`` extra);
* :mod:`speech_protocol.transports.sagemaker`: over a SageMaker endpoint's bidirectional stream (the
  ``sagemaker`` extra, Python >= 3.12).

Nothing is imported here: each transport loads its own library only when it is chosen.
"""

__all__ = ["part_stream", "sagemaker", "websocket"]
