package org.gpuoperator.api.validation;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.AnnotatedMember;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import java.lang.reflect.AnnotatedElement;
import java.util.List;
import java.util.Map;
import org.gpuoperator.api.common.UnknownFieldsPreserving;

/**
 * Visits every property of this project's API objects with its JSON path, using the same Jackson
 * view of the classes as the serializer and the CRD generator, so paths and names match the YAML a
 * user wrote.
 */
final class SpecWalker {
    private static final String API_PACKAGE = "org.gpuoperator.api.";
    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** What the walk reports. */
    interface Visitor {
        /** A known property; {@code value} may be null when the field is not set. */
        void property(String path, AnnotatedElement field, Object value);

        /** A field the API does not know, kept in the object's additional properties. */
        void unknown(String path, Object value);

        /**
         * A known field whose value could not be read into its type (e.g. an unknown enum value),
         * kept as written.
         */
        default void unreadable(String path, Object value, Class<?> type) {}
    }

    private SpecWalker() {}

    static void walk(Object node, String path, Visitor visitor) {
        if (node == null
                || !node.getClass().getName().startsWith(API_PACKAGE)
                || node instanceof Enum<?>) {
            return;
        }
        BeanDescription description =
                MAPPER.getSerializationConfig().introspect(MAPPER.constructType(node.getClass()));
        Map<String, Class<?>> types = new java.util.HashMap<>();
        for (BeanPropertyDefinition property : description.findProperties()) {
            AnnotatedMember accessor = property.getAccessor();
            if (accessor == null) {
                continue;
            }
            types.put(property.getName(), accessor.getRawType());
            String childPath = path + "." + property.getName();
            Object value = accessor.getValue(node);
            AnnotatedElement annotated =
                    property.getField() != null
                            ? property.getField().getAnnotated()
                            : accessor.getAnnotated();
            visitor.property(childPath, annotated, value);
            walkValue(value, childPath, visitor);
        }
        if (node instanceof UnknownFieldsPreserving preserving) {
            for (Map.Entry<String, Object> unknown :
                    preserving.getAdditionalProperties().entrySet()) {
                if (preserving.getUnreadableFields().contains(unknown.getKey())) {
                    visitor.unreadable(
                            path + "." + unknown.getKey(),
                            unknown.getValue(),
                            types.get(unknown.getKey()));
                } else {
                    visitor.unknown(path + "." + unknown.getKey(), unknown.getValue());
                }
            }
        }
    }

    private static void walkValue(Object value, String path, Visitor visitor) {
        if (value instanceof List<?> list) {
            for (int i = 0; i < list.size(); i++) {
                walk(list.get(i), path + "[" + i + "]", visitor);
            }
        } else {
            walk(value, path, visitor);
        }
    }
}
