"""Kafka's ACL authorizer with today's clients (issue 17, Deliver 4).

One broker with authorizer.class.name=org.apache.kafka.metadata.authorizer.
StandardAuthorizer (Spool takes Kafka's class names as aliases of its ACL
authorizer), a PLAINTEXT listener whose anonymous principal is the super user
(super.users=User:ANONYMOUS: the tests' administrator, and what Kafka's own
controller connection needs) and a SASL_PLAINTEXT listener named SASL with
PLAIN users alice, bob and carol, who hold only what each test grants.
ACLs are managed through the Admin API of confluent-kafka 2.16 (librdkafka)
and kafka-python 3, and then:

  * Create/Describe/DeleteAcls round-trip exact bindings; DescribeAcls'
    filters (ANY, MATCH, a principal) select as Kafka's do; DeleteAcls
    answers exactly the bindings it removed;
  * the ACL APIs need ALTER / DESCRIBE on the cluster
    (CLUSTER_AUTHORIZATION_FAILED), and answer SECURITY_DISABLED on a broker
    without an authorizer;
  * produce needs WRITE on the topic, consume READ on the topic and on the
    group (TOPIC_ / GROUP_AUTHORIZATION_FAILED otherwise), and the allowed
    principal round-trips exact messages;
  * a PREFIXED allow with a LITERAL deny: DENY wins, and Metadata lists
    only the topics the principal may describe;
  * a transactional producer needs WRITE on its transactional id
    (TRANSACTIONAL_ID_AUTHORIZATION_FAILED), an idempotent one WRITE on some
    topic (KIP-679); read_committed then reads exactly the committed records;
  * DescribeConfigs and IncrementalAlterConfigs need DESCRIBE_CONFIGS /
    ALTER_CONFIGS on the topic, or on the cluster for a broker;
  * CreateTopics needs CREATE (TOPIC_AUTHORIZATION_FAILED, then success once
    granted on a prefix);
  * ACLs survive a restart;
  * `spool acl add|list|remove` (kafka-acls.sh's shape) manages the same
    bindings, on Spool and on the peer alike.

librdkafka (2.16 too) drops DescribeAcls' top-level error code and reports
an empty success, so the DescribeAcls refusals are checked with
kafka-python, which raises them.

ACLs apply asynchronously on the Kafka peer (the controller's metadata log),
so each check after a change polls until it holds or a deadline passes.

Passes against the Apache Kafka 4.4 peer too:
  cd tests/compat/py && SPOOL_TEST_PEER=kafka ../../../build-venv/bin/python -m pytest -q test_acls.py
"""

import json
import subprocess
import time

import kafka
import kafka.admin
import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer
from confluent_kafka.admin import (AclBinding, AclBindingFilter, AclOperation, AclPermissionType, AdminClient,
                                   AlterConfigOpType, ConfigEntry, ConfigResource, NewTopic, ResourcePatternType,
                                   ResourceType)

import harness

USERS = {"alice": "alice-secret", "bob": "bob-secret", "carol": "carol-secret"}
JAAS = ("org.apache.kafka.common.security.plain.PlainLoginModule required "
        + " ".join(f'user_{u}="{p}"' for u, p in USERS.items()) + ";")
AUTHORIZER = {"authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
              "super.users": "User:ANONYMOUS"}
DEADLINE_S = 30

TOPIC, GROUP, CLUSTER = ResourceType.TOPIC, ResourceType.GROUP, ResourceType.BROKER
LITERAL, PREFIXED = ResourcePatternType.LITERAL, ResourcePatternType.PREFIXED
ALLOW, DENY = AclPermissionType.ALLOW, AclPermissionType.DENY


def start_broker(name, overrides):
    port = harness.free_port()
    b = harness.Broker(overrides=dict({"sasl.enabled.mechanisms": "PLAIN",
                                       "listener.name.sasl.plain.sasl.jaas.config": JAAS}, **overrides),
                       name=name, extra_listeners={"SASL": port}, listener_protocols={"SASL": "SASL_PLAINTEXT"})
    b.start()
    return b, f"127.0.0.1:{port}"


def stop_checked(b):
    alive = b.alive()
    rc = b.stop()
    log = b.all_logs()
    b.cleanup()
    assert alive and rc == 0, f"broker died or exited {rc}:\n{log[-4000:]}"


@pytest.fixture(scope="module")
def acl_node():
    b, sasl_bootstrap = start_broker("acls", AUTHORIZER)
    try:
        yield b, sasl_bootstrap
    finally:
        stop_checked(b)


def admin(b):
    """The super user's AdminClient (PLAINTEXT, User:ANONYMOUS), kept."""
    if not hasattr(b, "admin_client"):
        b.admin_client = AdminClient({"bootstrap.servers": b.bootstrap})
    return b.admin_client


def conf(bootstrap, user, **kw):
    c = {"bootstrap.servers": bootstrap, "security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "PLAIN",
         "sasl.username": user, "sasl.password": USERS[user]}
    c.update(kw)
    return c


def acl(rtype, name, pattern, user, op, perm=ALLOW):
    return AclBinding(rtype, name, pattern, f"User:{user}", "*", op, perm)


def key(b):
    """A binding as a plain tuple (order-free comparisons)."""
    return (b.restype.name, b.name, b.resource_pattern_type.name, b.principal, b.host, b.operation.name,
            b.permission_type.name)


def grant(b, *bindings):
    for f in admin(b).create_acls(list(bindings)).values():
        assert f.result(30) is None


def describe(b, flt):
    return {key(x) for x in admin(b).describe_acls(flt).result(30)}


def everything():
    return AclBindingFilter(ResourceType.ANY, None, ResourcePatternType.ANY, None, None, AclOperation.ANY,
                            AclPermissionType.ANY)


def revoke_all(b):
    for f in admin(b).delete_acls([everything()]).values():
        f.result(30)


def create(b, *topics):
    for f in admin(b).create_topics([NewTopic(t, 1, 1) for t in topics]).values():
        f.result(30)


def eventually(check, what):
    """Polls `check` (returns a truthy value when it holds) until DEADLINE_S."""
    deadline, last = time.monotonic() + DEADLINE_S, None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(0.3)
    raise AssertionError(f"{what}: still not true after {DEADLINE_S} s (last: {last!r})")


def produce_errors(bootstrap, user, topic, values):
    """The delivery errors of producing `values` as `user` (None per success)."""
    errors = []
    p = Producer(conf(bootstrap, user, acks="all", **{"message.timeout.ms": 10000}))
    for v in values:
        p.produce(topic, v, partition=0, on_delivery=lambda err, msg: errors.append(err))
    p.flush(30)
    return errors


def consume(bootstrap, user, topic, group, n, timeout_s=30):
    """Up to n values, or the first error, read as `user` in `group`."""
    c = Consumer(conf(bootstrap, user, **{"group.id": group, "auto.offset.reset": "earliest",
                                          "enable.auto.commit": False}))
    got = []
    try:
        c.subscribe([topic])
        deadline = time.monotonic() + timeout_s
        while len(got) < n and time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is None or (m.error() and m.error().code() == KafkaError._PARTITION_EOF):
                continue
            if m.error():
                return got, m.error()
            got.append(m.value())
    finally:
        c.close()
    return got, None


def test_acl_apis_round_trip_with_kafka_filters(acl_node):
    b, _ = acl_node
    revoke_all(b)
    wanted = [acl(TOPIC, "orders-1", LITERAL, "alice", AclOperation.READ),
              acl(TOPIC, "orders-", PREFIXED, "bob", AclOperation.WRITE),
              acl(TOPIC, "*", LITERAL, "carol", AclOperation.DESCRIBE),
              acl(TOPIC, "orders-1", LITERAL, "bob", AclOperation.DELETE, DENY),
              acl(GROUP, "g-orders", LITERAL, "alice", AclOperation.READ),
              acl(CLUSTER, "kafka-cluster", LITERAL, "carol", AclOperation.DESCRIBE)]
    grant(b, *wanted)
    assert describe(b, everything()) == {key(x) for x in wanted}
    # MATCH: every pattern covering topic orders-1 (literal, prefix, wildcard).
    match = AclBindingFilter(TOPIC, "orders-1", ResourcePatternType.MATCH, None, None, AclOperation.ANY,
                             AclPermissionType.ANY)
    assert describe(b, match) == {key(x) for x in wanted[:4]}
    # A principal and a permission.
    bob_deny = AclBindingFilter(ResourceType.ANY, None, ResourcePatternType.ANY, "User:bob", None, AclOperation.ANY,
                                DENY)
    assert describe(b, bob_deny) == {key(wanted[3])}
    # DeleteAcls answers exactly what it removed.
    fs = admin(b).delete_acls([AclBindingFilter(ResourceType.ANY, None, ResourcePatternType.ANY, "User:bob", None,
                                                AclOperation.ANY, AclPermissionType.ANY)])
    removed = {key(x) for f in fs.values() for x in f.result(30)}
    assert removed == {key(wanted[1]), key(wanted[3])}
    assert describe(b, everything()) == {key(x) for x in (wanted[0], wanted[2], wanted[4], wanted[5])}
    revoke_all(b)
    assert describe(b, everything()) == set()


def test_acl_apis_with_kafka_python(acl_node):
    b, _ = acl_node
    revoke_all(b)
    a = kafka.KafkaAdminClient(bootstrap_servers=b.bootstrap)
    try:
        binding = kafka.admin.ACL(principal="User:alice", host="*", operation=kafka.admin.ACLOperation.WRITE,
                                  permission_type=kafka.admin.ACLPermissionType.ALLOW,
                                  resource_pattern=kafka.admin.ResourcePattern(kafka.admin.ResourceType.TOPIC,
                                                                               "kp-topic"))
        result = a.create_acls([binding])
        assert not result["failed"], result
        acls, error = a.describe_acls(kafka.admin.ACLFilter(
            principal=None, host="*", operation=kafka.admin.ACLOperation.ANY,
            permission_type=kafka.admin.ACLPermissionType.ANY,
            resource_pattern=kafka.admin.ResourcePatternFilter(kafka.admin.ResourceType.TOPIC, "kp-topic",
                                                               kafka.admin.ACLResourcePatternType.LITERAL)))
        assert error is kafka.errors.NoError, error
        assert [(x.principal, x.operation, x.resource_pattern.resource_name) for x in acls] == \
            [("User:alice", kafka.admin.ACLOperation.WRITE, "kp-topic")]
    finally:
        a.close()
    revoke_all(b)


def kp_describe_error(bootstrap, **sasl):
    """The error kafka-python's DescribeAcls (every binding) raises or returns."""
    a = kafka.KafkaAdminClient(bootstrap_servers=bootstrap, **sasl)
    try:
        _, error = a.describe_acls(kafka.admin.ACLFilter(
            principal=None, host=None, operation=kafka.admin.ACLOperation.ANY,
            permission_type=kafka.admin.ACLPermissionType.ANY,
            resource_pattern=kafka.admin.ResourcePatternFilter(kafka.admin.ResourceType.ANY, None,
                                                               kafka.admin.ACLResourcePatternType.ANY)))
        return error
    except kafka.errors.BrokerResponseError as e:
        return type(e)
    finally:
        a.close()


def kp_sasl(user):
    return {"security_protocol": "SASL_PLAINTEXT", "sasl_mechanism": "PLAIN", "sasl_plain_username": user,
            "sasl_plain_password": USERS[user]}


def test_acl_apis_need_the_cluster_permission(acl_node):
    b, bootstrap = acl_node
    revoke_all(b)
    a = AdminClient(conf(bootstrap, "alice"))
    assert kp_describe_error(bootstrap, **kp_sasl("alice")) is kafka.errors.ClusterAuthorizationFailedError
    for f in a.create_acls([acl(TOPIC, "mine", LITERAL, "alice", AclOperation.ALL)]).values():
        with pytest.raises(KafkaException) as e:
            f.result(30)
        assert e.value.args[0].code() == KafkaError.CLUSTER_AUTHORIZATION_FAILED, e.value
    assert describe(b, everything()) == set()
    # With ALTER on the cluster alice may manage ACLs (and DESCRIBE follows from ALTER).
    grant(b, acl(CLUSTER, "kafka-cluster", LITERAL, "alice", AclOperation.ALTER))
    eventually(lambda: kp_describe_error(bootstrap, **kp_sasl("alice")) is kafka.errors.NoError,
               "alice describes ACLs")
    for f in a.create_acls([acl(TOPIC, "mine", LITERAL, "alice", AclOperation.ALL)]).values():
        assert f.result(30) is None
    eventually(lambda: key(acl(TOPIC, "mine", LITERAL, "alice", AclOperation.ALL)) in describe(b, everything()),
               "alice's own ACL is stored")
    revoke_all(b)


def test_produce_and_consume_need_their_acls(acl_node):
    b, bootstrap = acl_node
    revoke_all(b)
    topic, group = "acl-orders", "acl-readers"
    create(b, topic)
    values = [f"{topic}-{i}".encode() for i in range(20)]
    # Nobody but the super user yet: bob's writes are refused.
    errors = produce_errors(bootstrap, "bob", topic, values[:1])
    assert [e.code() for e in errors] == [KafkaError.TOPIC_AUTHORIZATION_FAILED], errors
    grant(b, acl(TOPIC, topic, LITERAL, "alice", AclOperation.WRITE),
          acl(TOPIC, topic, LITERAL, "alice", AclOperation.READ),
          acl(GROUP, group, LITERAL, "alice", AclOperation.READ),
          acl(GROUP, group, LITERAL, "bob", AclOperation.READ))
    eventually(lambda: produce_errors(bootstrap, "alice", topic, values[:1]) == [None], "alice may write")
    assert produce_errors(bootstrap, "alice", topic, values[1:]) == [None] * 19
    got, err = consume(bootstrap, "alice", topic, group, 20)
    assert err is None and got == values, (err, got)
    # bob: the group but not the topic; carol: neither.
    got, err = consume(bootstrap, "bob", topic, group, 1)
    assert got == [] and err is not None and err.code() == KafkaError.TOPIC_AUTHORIZATION_FAILED, err
    got, err = consume(bootstrap, "carol", topic, "carols-group", 1)
    assert got == [] and err is not None and err.code() == KafkaError.GROUP_AUTHORIZATION_FAILED, err
    errors = produce_errors(bootstrap, "bob", topic, values[:1])
    assert [e.code() for e in errors] == [KafkaError.TOPIC_AUTHORIZATION_FAILED], errors
    revoke_all(b)


def test_transactions_and_idempotence_need_their_acls(acl_node):
    b, bootstrap = acl_node
    revoke_all(b)
    topic = "acl-txn"
    create(b, topic)
    grant(b, acl(TOPIC, topic, LITERAL, "alice", AclOperation.WRITE),
          acl(TOPIC, topic, LITERAL, "alice", AclOperation.READ),
          acl(GROUP, "txn-reader", LITERAL, "alice", AclOperation.READ),
          acl(ResourceType.TRANSACTIONAL_ID, "tx-alice", LITERAL, "alice", AclOperation.WRITE),
          acl(TOPIC, topic, LITERAL, "carol", AclOperation.WRITE))

    def txn_producer(user, txn_id):
        return Producer(conf(bootstrap, user, **{"transactional.id": txn_id, "transaction.timeout.ms": 60000}))

    # bob may not use any transactional id.
    with pytest.raises(KafkaException) as e:
        txn_producer("bob", "tx-bob").init_transactions(30)
    assert e.value.args[0].code() == KafkaError.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, e.value
    # alice commits one transaction and aborts another.
    p = eventually(lambda: _initialized(txn_producer("alice", "tx-alice")), "alice initializes her transactions")
    p.begin_transaction()
    for i in range(5):
        p.produce(topic, f"committed-{i}".encode(), partition=0)
    p.commit_transaction(30)
    p.begin_transaction()
    p.produce(topic, b"aborted", partition=0)
    p.abort_transaction(30)
    # carol, with WRITE on a topic only, may be an idempotent producer (KIP-679).
    errors = []
    q = Producer(conf(bootstrap, "carol", **{"enable.idempotence": True, "acks": "all"}))
    q.produce(topic, b"idempotent", partition=0, on_delivery=lambda err, msg: errors.append(err))
    q.flush(30)
    assert errors == [None], errors
    got, err = consume(bootstrap, "alice", topic, "txn-reader", 6)
    assert err is None, err
    assert sorted(got) == sorted([f"committed-{i}".encode() for i in range(5)] + [b"idempotent"]), got
    revoke_all(b)


def _initialized(p):
    try:
        p.init_transactions(30)
        return p
    except KafkaException:
        return None


def visible_topics(bootstrap, user):
    return {t for t in AdminClient(conf(bootstrap, user)).list_topics(timeout=30).topics if t.startswith("vis-")}


def test_deny_wins_and_metadata_hides_what_may_not_be_described(acl_node):
    b, bootstrap = acl_node
    revoke_all(b)
    create(b, "vis-a", "vis-b", "vis-secret", "other-vis")
    assert visible_topics(bootstrap, "carol") == set()
    grant(b, acl(TOPIC, "vis-", PREFIXED, "carol", AclOperation.READ),
          acl(TOPIC, "vis-secret", LITERAL, "carol", AclOperation.DESCRIBE, DENY))
    # READ implies DESCRIBE; the literal DENY beats the prefixed ALLOW.
    eventually(lambda: visible_topics(bootstrap, "carol") == {"vis-a", "vis-b"}, "carol sees vis-a and vis-b")
    md = AdminClient(conf(bootstrap, "carol")).list_topics(topic="vis-secret", timeout=30)
    assert md.topics["vis-secret"].error is not None
    assert md.topics["vis-secret"].error.code() == KafkaError.TOPIC_AUTHORIZATION_FAILED, md.topics["vis-secret"].error
    assert visible_topics(bootstrap, "bob") == set()
    revoke_all(b)


def config_error(fn):
    try:
        fn()
        return None
    except KafkaException as e:
        return e.args[0].code()


def test_configs_need_describe_and_alter_configs(acl_node):
    b, bootstrap = acl_node
    revoke_all(b)
    topic = "acl-configs"
    create(b, topic)
    a = AdminClient(conf(bootstrap, "bob"))
    res = ConfigResource(ConfigResource.Type.TOPIC, topic)
    broker_id = next(iter(admin(b).list_topics(timeout=30).brokers))
    broker = ConfigResource(ConfigResource.Type.BROKER, str(broker_id))

    def describe_topic():
        for f in a.describe_configs([res]).values():
            return f.result(30)

    def describe_broker():
        for f in a.describe_configs([broker]).values():
            return f.result(30)

    def alter_topic():
        change = ConfigResource(ConfigResource.Type.TOPIC, topic, incremental_configs=[
            ConfigEntry("retention.ms", "3600000", incremental_operation=AlterConfigOpType.SET)])
        for f in a.incremental_alter_configs([change]).values():
            f.result(30)

    assert config_error(describe_topic) == KafkaError.TOPIC_AUTHORIZATION_FAILED
    assert config_error(alter_topic) == KafkaError.TOPIC_AUTHORIZATION_FAILED
    assert config_error(describe_broker) == KafkaError.CLUSTER_AUTHORIZATION_FAILED
    grant(b, acl(TOPIC, topic, LITERAL, "bob", AclOperation.DESCRIBE_CONFIGS))
    eventually(lambda: config_error(describe_topic) is None, "bob describes the topic's configs")
    assert config_error(alter_topic) == KafkaError.TOPIC_AUTHORIZATION_FAILED
    grant(b, acl(TOPIC, topic, LITERAL, "bob", AclOperation.ALTER_CONFIGS))
    eventually(lambda: config_error(alter_topic) is None, "bob alters the topic's configs")
    assert describe_topic()["retention.ms"].value == "3600000"
    revoke_all(b)


def test_create_topics_needs_create(acl_node):
    b, bootstrap = acl_node
    revoke_all(b)
    a = AdminClient(conf(bootstrap, "bob"))

    def try_create(name):
        try:
            for f in a.create_topics([NewTopic(name, 1, 1)]).values():
                f.result(30)
            return None
        except KafkaException as e:
            return e.args[0].code()

    assert try_create("bob-first") == KafkaError.TOPIC_AUTHORIZATION_FAILED
    grant(b, acl(TOPIC, "bob-", PREFIXED, "bob", AclOperation.CREATE))
    eventually(lambda: try_create("bob-second") is None, "bob creates bob-second")
    assert try_create("alices-topic") == KafkaError.TOPIC_AUTHORIZATION_FAILED
    assert "bob-second" in admin(b).list_topics(timeout=30).topics
    assert "bob-first" not in admin(b).list_topics(timeout=30).topics
    revoke_all(b)


def test_acls_survive_a_restart():
    b, bootstrap = start_broker("acls_restart", AUTHORIZER)
    try:
        wanted = [acl(TOPIC, "kept", LITERAL, "alice", AclOperation.WRITE),
                  acl(GROUP, "kept-", PREFIXED, "bob", AclOperation.READ, DENY)]
        grant(b, *wanted)
        eventually(lambda: describe(b, everything()) == {key(x) for x in wanted}, "both ACLs stored")
        create(b, "kept")
        b.stop()
        del b.admin_client
        b.start()
        assert describe(b, everything()) == {key(x) for x in wanted}
        assert eventually(lambda: produce_errors(bootstrap, "alice", "kept", [b"after"]) == [None],
                          "alice still writes after the restart")
        assert [e.code() for e in produce_errors(bootstrap, "bob", "kept", [b"x"])] == \
            [KafkaError.TOPIC_AUTHORIZATION_FAILED]
    finally:
        stop_checked(b)


def test_without_an_authorizer_the_acl_apis_are_disabled():
    b, _ = start_broker("acls_off", {})
    try:
        assert kp_describe_error(b.bootstrap) is kafka.errors.SecurityDisabledError
        for f in admin(b).create_acls([acl(TOPIC, "t", LITERAL, "alice", AclOperation.READ)]).values():
            with pytest.raises(KafkaException) as e:
                f.result(30)
            assert e.value.args[0].code() == KafkaError.SECURITY_DISABLED, e.value
    finally:
        stop_checked(b)


def spool_acl(b, *args):
    r = subprocess.run([harness.spool_bin(), "acl", *args, "--bootstrap-server", b.bootstrap],
                       capture_output=True, text=True, timeout=60)
    return r.returncode, r.stdout, r.stderr


def test_spool_acl_cli(acl_node):
    b, bootstrap = acl_node
    revoke_all(b)
    rc, out, err = spool_acl(b, "add", "--topic", "cli-", "--group", "cli-", "--resource-pattern-type", "prefixed",
                             "--allow-principal", "User:alice", "--operation", "Read", "--operation", "Describe")
    assert rc == 0, err
    assert out.count("Added ") == 4, out
    rc, out, err = spool_acl(b, "add", "--topic", "cli-secret", "--deny-principal", "User:alice",
                             "--operation", "Read")
    assert rc == 0, err
    # list --resource-pattern-type match: what covers topic cli-secret.
    rc, out, err = spool_acl(b, "list", "--topic", "cli-secret", "--resource-pattern-type", "match", "-o", "json")
    assert rc == 0, err
    got = {(x["resource_type"], x["name"], x["pattern_type"], x["principal"], x["operation"], x["permission"])
           for x in json.loads(out)}
    assert got == {("TOPIC", "cli-", "PREFIXED", "User:alice", "READ", "ALLOW"),
                   ("TOPIC", "cli-", "PREFIXED", "User:alice", "DESCRIBE", "ALLOW"),
                   ("TOPIC", "cli-secret", "LITERAL", "User:alice", "READ", "DENY")}
    # The same bindings the Admin API sees.
    assert len(describe(b, everything())) == 5
    # Bad arguments exit 2 before anything is sent.
    rc, _, err = spool_acl(b, "add", "--topic", "t", "--allow-principal", "User:alice", "--operation", "Juggle")
    assert rc == 2 and "unknown operation" in err, err
    rc, _, err = spool_acl(b, "add", "--cluster", "--resource-pattern-type", "prefixed", "--allow-principal", "User:x")
    assert rc == 2 and "kafka-cluster" in err, err
    # remove with no principal: everything on the named resources.
    rc, out, err = spool_acl(b, "remove", "--topic", "cli-", "--resource-pattern-type", "prefixed", "-o", "json")
    assert rc == 0, err
    assert {(x["name"], x["operation"]) for x in json.loads(out)} == {("cli-", "READ"), ("cli-", "DESCRIBE")}
    assert {(x[0], x[1], x[5]) for x in describe(b, everything())} == \
        {("GROUP", "cli-", "READ"), ("GROUP", "cli-", "DESCRIBE"), ("TOPIC", "cli-secret", "READ")}
    revoke_all(b)
