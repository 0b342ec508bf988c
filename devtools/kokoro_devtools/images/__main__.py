"""``python -m kokoro_devtools.images build|run model|agent``: the images, built and served here.

    build model [--engine onnx]   container/Dockerfile -> localhost/kokoro-tts:onnx
    build agent                   agent/Dockerfile     -> localhost/kokoro-voice-agent:latest
    run model [--port 8080]       serve, as SageMaker starts the container
    run agent [--port 8080] [-e NAME=VALUE ...] [-v HOST:CONTAINER ...]
    size model|agent              its size, and what its Dockerfile adds to its base, in bytes (JSON)

The first build makes the stand-in base images (about a minute, once); later builds reuse every unchanged
layer. Images live in ~/.cache/kokoro-images (KOKORO_IMAGES_ROOT moves it). Needs buildah and debootstrap,
which ./setup.sh installs, and root.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time

from kokoro_devtools.env_option import setting
from kokoro_devtools.images import bases
from kokoro_devtools.images.buildah import Buildah, ImageError, storage_root
from kokoro_devtools.images.services import SERVICES, build, serve_until_stopped
from kokoro_devtools.images.sizes import sizes
from kokoro_processes import children

ENGINES = ("onnx", "torch")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kokoro_devtools.images", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    commands = parser.add_subparsers(dest="command", required=True)
    for name, text in (("build", "build an image from its Dockerfile"), ("run", "serve an image"),
                       ("size", "an image's size in bytes")):  # fmt: skip
        sub = commands.add_parser(name, help=text)
        sub.add_argument("service", choices=sorted(SERVICES))
        sub.add_argument("--engine", choices=ENGINES, default="onnx", help="the model image's engine (default onnx)")
        if name == "run":
            sub.add_argument("--port", type=int, default=8080, help="port on 127.0.0.1 (default 8080)")
            sub.add_argument(
                "-e",
                "--env",
                action="append",
                default=[],
                type=setting,
                metavar="NAME=VALUE",
                help="set in the container",
            )
            sub.add_argument("-v", "--volume", action="append", default=[], metavar="HOST:CONTAINER[:ro]",
                             help="mount a host file or folder")  # fmt: skip
    args = parser.parse_args(argv)
    children.end_children_with_parent()
    buildah, service = Buildah(storage_root()), SERVICES[args.service]
    try:
        if args.command == "build":
            started = time.monotonic()
            tag = build(buildah, service, args.engine)
            print(f"==> built {tag} in {time.monotonic() - started:.1f} s", flush=True)
            return 0
        tag = service.tag(args.engine)
        if not buildah.has_image(tag):
            raise ImageError(f"no image {tag} yet: python -m kokoro_devtools.images build {args.service} first")
        if args.command == "size":
            print(json.dumps(dataclasses.asdict(sizes(buildah, tag, bases.base_names(service.dockerfile)))))
            return 0
        return serve_until_stopped(buildah, tag, service, args.port, args.env, args.volume)
    except ImageError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
