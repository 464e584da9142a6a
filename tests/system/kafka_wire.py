"""Hand-built Kafka frames for the system tests (no client library, so a test
sends exactly the bytes it means): kafka_wire_core.py (framing, Produce,
Fetch, InitProducerId, record batches, sockets) and kafka_txn_wire.py (the
transactional APIs), under one name."""

from kafka_wire_core import *  # noqa: F401,F403
from kafka_txn_wire import _read_varint  # noqa: F401 - used by tests
from kafka_txn_wire import *  # noqa: F401,F403
