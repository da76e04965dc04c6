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

    /** One readable property: its JSON name, how to read it, and where its annotations are. */
    private record Property(String name, AnnotatedMember accessor, AnnotatedElement annotated) {}

    /** A class's readable properties, and each property's type by JSON name. */
    private record Properties(List<Property> list, Map<String, Class<?>> types) {}

    /**
     * Jackson's introspection of a class, once per class: it builds a fresh description on every
     * call, and the controller validates the policy on each reconcile.
     */
    private static final ClassValue<Properties> PROPERTIES =
            new ClassValue<>() {
                @Override
                protected Properties computeValue(Class<?> type) {
                    BeanDescription description =
                            MAPPER.getSerializationConfig().introspect(MAPPER.constructType(type));
                    List<Property> list = new java.util.ArrayList<>();
                    Map<String, Class<?>> types = new java.util.HashMap<>();
                    for (BeanPropertyDefinition property : description.findProperties()) {
                        AnnotatedMember accessor = property.getAccessor();
                        if (accessor == null) {
                            continue;
                        }
                        types.put(property.getName(), accessor.getRawType());
                        AnnotatedElement annotated =
                                property.getField() != null
                                        ? property.getField().getAnnotated()
                                        : accessor.getAnnotated();
                        list.add(new Property(property.getName(), accessor, annotated));
                    }
                    return new Properties(List.copyOf(list), Map.copyOf(types));
                }
            };

    static void walk(Object node, String path, Visitor visitor) {
        if (node == null
                || !node.getClass().getName().startsWith(API_PACKAGE)
                || node instanceof Enum<?>) {
            return;
        }
        Properties properties = PROPERTIES.get(node.getClass());
        for (Property property : properties.list()) {
            String childPath = path + "." + property.name();
            Object value = property.accessor().getValue(node);
            visitor.property(childPath, property.annotated(), value);
            walkValue(value, childPath, visitor);
        }
        if (node instanceof UnknownFieldsPreserving preserving) {
            for (Map.Entry<String, Object> unknown :
                    preserving.getAdditionalProperties().entrySet()) {
                if (preserving.getUnreadableFields().contains(unknown.getKey())) {
                    visitor.unreadable(
                            path + "." + unknown.getKey(),
                            unknown.getValue(),
                            properties.types().get(unknown.getKey()));
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
