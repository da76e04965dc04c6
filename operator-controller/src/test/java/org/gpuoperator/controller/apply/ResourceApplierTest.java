package org.gpuoperator.controller.apply;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.gpuoperator.controller.apply.ResourceApplier.Result;
import org.junit.jupiter.api.Test;

/**
 * The applier against an in-memory API: one write per real change, none otherwise, delete by name.
 */
class ResourceApplierTest {

    private final Map<ObjectRef, HasMetadata> stored = new HashMap<>();
    private final List<String> calls = new ArrayList<>();
    private Instant now = Instant.parse("2026-01-01T00:00:00Z");
    private int version;

    private final ResourceApplier.Api api =
            new ResourceApplier.Api() {
                @Override
                public HasMetadata get(ObjectRef ref) {
                    calls.add("get " + ref.name());
                    return stored.get(ref);
                }

                @Override
                public HasMetadata create(HasMetadata desired) {
                    calls.add("create " + desired.getMetadata().getName());
                    desired.getMetadata().setResourceVersion(Integer.toString(++version));
                    stored.put(ObjectRef.of(desired), desired);
                    return desired;
                }

                @Override
                public HasMetadata update(HasMetadata desired) {
                    calls.add("update " + desired.getMetadata().getName());
                    desired.getMetadata().setResourceVersion(Integer.toString(++version));
                    stored.put(ObjectRef.of(desired), desired);
                    return desired;
                }

                @Override
                public void delete(ObjectRef ref) {
                    calls.add("delete " + ref.name());
                    stored.remove(ref);
                }

                @Override
                public void deleteKeepingDependents(ObjectRef ref) {
                    calls.add("delete orphaning " + ref.name());
                    stored.remove(ref);
                }
            };

    private final List<String> writes = new ArrayList<>();
    private final ResourceApplier applier =
            new ResourceApplier(
                    api,
                    (verb, kind) -> writes.add(verb + " " + kind),
                    ResourceApplier.LiveCache.NONE,
                    new Clock() {
                        @Override
                        public Instant instant() {
                            return now;
                        }

                        @Override
                        public java.time.ZoneId getZone() {
                            return ZoneOffset.UTC;
                        }

                        @Override
                        public Clock withZone(java.time.ZoneId zone) {
                            return this;
                        }
                    });

    private static ServiceAccount account(boolean token) {
        return new ServiceAccountBuilder()
                .withNewMetadata()
                .withName("sa")
                .withNamespace("ns")
                .endMetadata()
                .withAutomountServiceAccountToken(token)
                .build();
    }

    private static final ObjectRef SA = new ObjectRef(ServiceAccount.class, "ns", "sa");

    @Test
    void createsThenLeavesAnUnchangedObjectAloneThenUpdatesAChange() {
        assertThat(applier.apply(account(true))).isEqualTo(Result.CREATED);
        assertThat(stored.get(SA).getMetadata().getAnnotations())
                .containsKey(ResourceApplier.HASH_ANNOTATION);

        assertThat(applier.apply(account(true))).isEqualTo(Result.UNCHANGED);
        now = now.plus(ResourceApplier.VERIFY_AFTER).plusSeconds(1);
        assertThat(applier.apply(account(true)))
                .isEqualTo(Result.UNCHANGED); // read back, same hash

        assertThat(applier.apply(account(false))).isEqualTo(Result.UPDATED);
        assertThat(((ServiceAccount) stored.get(SA)).getAutomountServiceAccountToken()).isFalse();
        assertThat(writes).containsExactly("create ServiceAccount", "update ServiceAccount");
    }

    @Test
    void anObjectAppliedRecentlyIsNotReadBackUntilTheVerifyInterval() {
        applier.apply(account(true));
        calls.clear();
        applier.apply(account(true));
        assertThat(calls).isEmpty();
        now = now.plus(Duration.ofMinutes(6));
        applier.apply(account(true));
        assertThat(calls).containsExactly("get sa");
    }

    @Test
    void noDesiredObjectDeletesByNameAndOnlyWhenPresent() {
        assertThat(applier.reconcile(SA, Optional.empty())).isEqualTo(Result.UNCHANGED);
        applier.apply(account(true));
        now = now.plusSeconds(1);
        assertThat(applier.reconcile(SA, Optional.empty())).isEqualTo(Result.DELETED);
        assertThat(stored).isEmpty();
        calls.clear();
        assertThat(applier.reconcile(SA, Optional.empty())).isEqualTo(Result.UNCHANGED);
        assertThat(calls).isEmpty(); // deleted a moment ago: not even read
        assertThat(writes).containsExactly("create ServiceAccount", "delete ServiceAccount");
    }

    @Test
    void anObjectBeingDeletedIsNotDeletedAgain() {
        // a DaemonSet deleted with orphan propagation keeps its deletion timestamp while the
        // garbage collector orphans its pods; every reconcile in that window sees it
        ServiceAccount marked = account(true);
        marked.getMetadata().setDeletionTimestamp("2026-01-01T00:00:00Z");
        marked.getMetadata().setFinalizers(List.of("orphan"));
        stored.put(SA, marked);
        for (int i = 0; i < 3; i++) {
            now = now.plus(ResourceApplier.VERIFY_AFTER).plusSeconds(1);
            assertThat(applier.reconcile(SA, Optional.empty())).isEqualTo(Result.UNCHANGED);
            assertThat(applier.deleteKeepingDependents(SA)).isEqualTo(Result.UNCHANGED);
        }
        assertThat(calls).containsOnly("get sa");
        assertThat(writes).isEmpty();

        // wanted again while it is being deleted: updated as it is (a create would be refused
        // while the name is taken), then made again once it is gone
        now = now.plus(ResourceApplier.VERIFY_AFTER).plusSeconds(1);
        assertThat(applier.apply(account(false))).isEqualTo(Result.UPDATED);
        assertThat(calls).doesNotContain("create sa");
        assertThat(writes).containsExactly("update ServiceAccount");
        writes.clear();

        marked = (ServiceAccount) stored.get(SA);
        marked.getMetadata().setDeletionTimestamp(null); // not so: deleted
        now = now.plus(ResourceApplier.VERIFY_AFTER).plusSeconds(1);
        assertThat(applier.deleteKeepingDependents(SA)).isEqualTo(Result.DELETED);
        assertThat(writes).containsExactly("delete ServiceAccount");
    }

    @Test
    void anObjectChangedBehindOurBackIsRepairedAfterTheVerifyInterval() {
        applier.apply(account(true));
        stored.put(SA, account(false)); // someone replaced it, without our hash
        assertThat(applier.apply(account(true))).isEqualTo(Result.UNCHANGED);
        now = now.plus(ResourceApplier.VERIFY_AFTER).plusSeconds(1);
        assertThat(applier.apply(account(true))).isEqualTo(Result.UPDATED);
    }
}
