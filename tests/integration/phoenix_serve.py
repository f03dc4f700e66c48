"""`phoenix serve` with its gRPC collector off, run by test_phoenix with Phoenix's interpreter.

PHOENIX_HOST keeps the HTTP server (UI, REST API, OTLP/HTTP at /v1/traces) on loopback, but
Phoenix binds its gRPC OTLP collector to every interface (`[::]:PHOENIX_GRPC_PORT`) whatever
PHOENIX_HOST says, and only its read-only mode turns it off. The test sends OTLP/HTTP only, so
the collector is built disabled here and nothing listens beyond loopback.
"""

from __future__ import annotations

import sys
from typing import Any

import phoenix.server.grpc_server as grpc_server  # type: ignore[import-not-found]
from phoenix.server.main import main  # type: ignore[import-not-found]

_init = grpc_server.GrpcServer.__init__


def _disabled(self: Any, *args: Any, **kwargs: Any) -> None:
    kwargs["disabled"] = True
    _init(self, *args, **kwargs)


grpc_server.GrpcServer.__init__ = _disabled

if __name__ == "__main__":
    sys.argv = ["phoenix", "serve"]
    main()
