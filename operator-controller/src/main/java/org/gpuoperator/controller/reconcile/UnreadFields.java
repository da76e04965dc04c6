package org.gpuoperator.controller.reconcile;

import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The fields of the API's objects that no step of the controller reads, in one place: {@link
 * ControllerSerialization} skips them while parsing, {@link TrimmedItemStore} empties them on
 * objects parsed by another client. Each is a list that fabric8's model starts empty or a value it
 * starts null, so a skipped field and an emptied one look the same.
 *
 * <p>None of them may be written back from a read object: the controller patches nodes and pods by
 * field; the objects it replaces (the applier's) are rendered, not read; and an update without
 * {@code managedFields} leaves the server's as they are.
 */
final class UnreadFields {

    /** One unread field: its model class, its JSON name, its value and how to empty it. */
    record Field<T>(Class<T> type, String json, Function<T, Object> value, Consumer<T> empty) {}

    static final List<Field<?>> ALL =
            List.of(
                    // every kind's copy of who wrote what; the largest part of a real node
                    new Field<>(
                            ObjectMeta.class,
                            "managedFields",
                            ObjectMeta::getManagedFields,
                            m -> m.setManagedFields(new ArrayList<>())),
                    // the kubelet's image list (up to 50 entries) and volume lists
                    new Field<>(
                            NodeStatus.class,
                            "images",
                            NodeStatus::getImages,
                            s -> s.setImages(new ArrayList<>())),
                    new Field<>(
                            NodeStatus.class,
                            "volumesInUse",
                            NodeStatus::getVolumesInUse,
                            s -> s.setVolumesInUse(new ArrayList<>())),
                    new Field<>(
                            NodeStatus.class,
                            "volumesAttached",
                            NodeStatus::getVolumesAttached,
                            s -> s.setVolumesAttached(new ArrayList<>())),
                    // the time of the kubelet's last report: the one thing a report between
                    // changes changes besides the resourceVersion (RepeatedNodeReports)
                    new Field<>(
                            NodeCondition.class,
                            "lastHeartbeatTime",
                            NodeCondition::getLastHeartbeatTime,
                            c -> c.setLastHeartbeatTime(null)));

    private UnreadFields() {}

    /** The JSON names to skip, per model class. */
    static Map<Class<?>, Set<String>> byType() {
        return ALL.stream()
                .collect(
                        Collectors.groupingBy(
                                Field::type, Collectors.mapping(Field::json, Collectors.toSet())));
    }

    /** Empties a node's unread fields: its metadata's, its status's and its conditions'. */
    static void emptyNode(io.fabric8.kubernetes.api.model.Node node) {
        empty(node.getMetadata());
        empty(node.getStatus());
        if (node.getStatus() != null && node.getStatus().getConditions() != null) {
            node.getStatus().getConditions().forEach(UnreadFields::empty);
        }
    }

    /**
     * Empties {@code bean}'s unread fields (none when null or of no listed class). A field already
     * empty is not written: a node given again by {@link RepeatedNodeReports} shares its status
     * with the cached one, which the store would otherwise write to while the steps read it.
     */
    static void empty(Object bean) {
        for (Field<?> f : ALL) {
            emptyIf(f, bean);
        }
    }

    private static <T> void emptyIf(Field<T> f, Object bean) {
        if (!f.type().isInstance(bean)) {
            return;
        }
        T t = f.type().cast(bean);
        Object value = f.value().apply(t);
        if (value != null && !(value instanceof java.util.Collection<?> c && c.isEmpty())) {
            f.empty().accept(t);
        }
    }
}
