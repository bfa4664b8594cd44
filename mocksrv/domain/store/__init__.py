"""The one place state lives: records by kind and merchant, timers, outbox, counters, clocks, and the
queue of webhook deliveries."""

from mocksrv.domain.store.deliveries import DeliveryQueue as DeliveryQueue
from mocksrv.domain.store.deliveries import Turn as Turn
from mocksrv.domain.store.memory import MemoryStore as MemoryStore
from mocksrv.domain.store.records import GLOBAL as GLOBAL
from mocksrv.domain.store.records import Between as Between
from mocksrv.domain.store.records import Collection as Collection
from mocksrv.domain.store.records import Query as Query
from mocksrv.domain.store.records import Timer as Timer
from mocksrv.domain.store.records import sort_key as sort_key
from mocksrv.domain.store.space import PreparedSpace as PreparedSpace
from mocksrv.domain.store.space import SpaceState as SpaceState
