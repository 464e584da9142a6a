// Java AdminClient 4.4: alterClientQuotas and describeClientQuotas (issue 17).
// Quotas on a user, a client id, a user with a client id and the defaults;
// filters by exact name, default, any name, and strict; removal; Kafka's
// validation (an unknown key, a byte rate that is not whole) as
// InvalidRequestException; validateOnly writes nothing. Exact values.
package dev.spool.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.AlterClientQuotasOptions;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.apache.kafka.common.quota.ClientQuotaFilterComponent;
import org.junit.jupiter.api.Test;

class ClientQuotasTest extends BrokerTestBase {
  @Override
  Map<String, String> brokerOverrides() {
    return Map.of();
  }

  static ClientQuotaEntity entity(String user, String clientId) {
    Map<String, String> parts = new HashMap<>();
    if (user != null) parts.put(ClientQuotaEntity.USER, user.equals("<default>") ? null : user);
    if (clientId != null) parts.put(ClientQuotaEntity.CLIENT_ID, clientId.equals("<default>") ? null : clientId);
    return new ClientQuotaEntity(parts);
  }

  void alter(ClientQuotaEntity e, Map<String, Double> set, boolean validateOnly) throws Exception {
    List<ClientQuotaAlteration.Op> ops = set.entrySet().stream()
        .map(x -> new ClientQuotaAlteration.Op(x.getKey(), x.getValue())).toList();
    get(admin.alterClientQuotas(List.of(new ClientQuotaAlteration(e, ops)),
        new AlterClientQuotasOptions().validateOnly(validateOnly)).all());
  }

  Map<ClientQuotaEntity, Map<String, Double>> describe(ClientQuotaFilter f) throws Exception {
    return get(admin.describeClientQuotas(f).entities());
  }

  /** Waits until the broker describes `e` with `want` (the peer applies changes asynchronously). */
  void awaitDescribed(ClientQuotaEntity e, Map<String, Double> want) throws Exception {
    long deadline = System.currentTimeMillis() + 30_000;
    while (true) {
      Map<String, Double> got = describe(ClientQuotaFilter.all()).getOrDefault(e, Map.of());
      if (got.equals(want)) return;
      if (System.currentTimeMillis() > deadline) assertEquals(want, got, "quotas of " + e);
      Thread.sleep(200);
    }
  }

  @Test
  void alterDescribeFilterAndRemove() throws Exception {
    ClientQuotaEntity alice = entity("alice", null);
    ClientQuotaEntity aliceApp = entity("alice", "app");
    ClientQuotaEntity defaultUser = entity("<default>", null);
    ClientQuotaEntity app = entity(null, "app");
    alter(alice, Map.of("producer_byte_rate", 1048576.0, "request_percentage", 12.5), false);
    alter(aliceApp, Map.of("consumer_byte_rate", 2048.0), false);
    alter(defaultUser, Map.of("producer_byte_rate", 4096.0), false);
    alter(app, Map.of("request_percentage", 200.0), false);
    awaitDescribed(app, Map.of("request_percentage", 200.0));

    Map<ClientQuotaEntity, Map<String, Double>> all = describe(ClientQuotaFilter.all());
    assertEquals(Map.of("producer_byte_rate", 1048576.0, "request_percentage", 12.5), all.get(alice));
    assertEquals(Map.of("consumer_byte_rate", 2048.0), all.get(aliceApp));
    assertEquals(Map.of("producer_byte_rate", 4096.0), all.get(defaultUser));
    assertEquals(Map.of("request_percentage", 200.0), all.get(app));

    // An exact user, not strict: alice, and alice with her client id.
    assertEquals(Map.of(alice, all.get(alice), aliceApp, all.get(aliceApp)),
        describe(ClientQuotaFilter.contains(List.of(ClientQuotaFilterComponent.ofEntity(ClientQuotaEntity.USER, "alice")))));
    // Strict: alice alone.
    assertEquals(Map.of(alice, all.get(alice)),
        describe(ClientQuotaFilter.containsOnly(List.of(ClientQuotaFilterComponent.ofEntity(ClientQuotaEntity.USER, "alice")))));
    // The default user.
    assertEquals(Map.of(defaultUser, all.get(defaultUser)),
        describe(ClientQuotaFilter.contains(List.of(ClientQuotaFilterComponent.ofDefaultEntity(ClientQuotaEntity.USER)))));
    // Any user with any client id.
    assertEquals(Map.of(aliceApp, all.get(aliceApp)),
        describe(ClientQuotaFilter.contains(List.of(ClientQuotaFilterComponent.ofEntityType(ClientQuotaEntity.USER),
            ClientQuotaFilterComponent.ofEntityType(ClientQuotaEntity.CLIENT_ID)))));
    // Client ids only, strict.
    assertEquals(Map.of(app, all.get(app)),
        describe(ClientQuotaFilter.containsOnly(List.of(ClientQuotaFilterComponent.ofEntityType(ClientQuotaEntity.CLIENT_ID)))));

    // Removing a key; removing the last one drops the entity.
    get(admin.alterClientQuotas(List.of(new ClientQuotaAlteration(alice,
        List.of(new ClientQuotaAlteration.Op("request_percentage", null))))).all());
    awaitDescribed(alice, Map.of("producer_byte_rate", 1048576.0));
    for (ClientQuotaEntity e : List.of(alice, aliceApp, defaultUser, app)) {
      List<ClientQuotaAlteration.Op> ops = all.get(e).keySet().stream()
          .map(k -> new ClientQuotaAlteration.Op(k, null)).toList();
      get(admin.alterClientQuotas(List.of(new ClientQuotaAlteration(e, ops))).all());
    }
    awaitDescribed(app, Map.of());
    long deadline = System.currentTimeMillis() + 30_000;
    while (!describe(ClientQuotaFilter.all()).isEmpty() && System.currentTimeMillis() < deadline) Thread.sleep(200);
    assertEquals(Map.of(), describe(ClientQuotaFilter.all()));
  }

  @Test
  void validation() throws Exception {
    ClientQuotaEntity bob = entity("bob", null);
    for (Map<String, Double> bad : List.of(Map.of("no_such_quota", 5.0), Map.of("producer_byte_rate", 1.5))) {
      ExecutionException e = assertThrows(ExecutionException.class, () -> alter(bob, bad, false), bad.toString());
      assertInstanceOf(InvalidRequestException.class, e.getCause(), bad.toString());
    }
    // validateOnly: accepted, nothing written.
    alter(bob, Map.of("producer_byte_rate", 1000.0), true);
    Thread.sleep(500);
    assertTrue(describe(ClientQuotaFilter.contains(List.of(ClientQuotaFilterComponent.ofEntity(ClientQuotaEntity.USER, "bob")))).isEmpty());
  }
}
