package org.gpuoperator.api.validation;

import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Member;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.gpuoperator.api.common.UnknownFieldsPreserving;

/**
 * Every leaf a user set in a spec, with its JSON path: scalars, each element of a list of scalars
 * or foreign objects ({@code spec.driver.args[0]}), each entry of a map ({@code
 * spec.daemonsets.labels[team]}), an empty list or map as itself, and each unknown field as one
 * leaf. Objects of this API are walked into, so a section set to {@code {}} has no leaf. Pure.
 */
public final class SetFields {

    /**
     * @param path JSON path, e.g. {@code spec.devicePlugin.env[0].name}
     * @param known false for a field this API does not know (kept in the additional properties)
     */
    public record SetField(String path, Object value, boolean known) {}

    private SetFields() {}

    public static List<SetField> of(Object spec, String rootPath) {
        List<SetField> leaves = new ArrayList<>();
        SpecWalker.walk(
                spec,
                rootPath,
                new SpecWalker.Visitor() {
                    @Override
                    public void property(String path, AnnotatedElement field, Object value) {
                        // the unknown fields' map itself: its entries come through unknown()
                        if (!(field instanceof Member member
                                && member.getDeclaringClass() == UnknownFieldsPreserving.class)) {
                            leaves(path, value, leaves);
                        }
                    }

                    @Override
                    public void unknown(String path, Object value) {
                        leaves.add(new SetField(path, value, false));
                    }
                });
        return List.copyOf(leaves);
    }

    private static void leaves(String path, Object value, List<SetField> leaves) {
        if (value == null || walkedInto(value)) {
            return;
        }
        if (value instanceof List<?> list) {
            if (list.isEmpty()) {
                leaves.add(new SetField(path, value, true));
            }
            for (int i = 0; i < list.size(); i++) {
                if (!walkedInto(list.get(i))) {
                    leaves(path + "[" + i + "]", list.get(i), leaves);
                }
            }
        } else if (value instanceof Map<?, ?> map) {
            if (map.isEmpty()) {
                leaves.add(new SetField(path, value, true));
            }
            map.forEach((key, entry) -> leaves(path + "[" + key + "]", entry, leaves));
        } else {
            leaves.add(new SetField(path, value, true));
        }
    }

    /** Objects of this API: the walker visits their properties itself. */
    private static boolean walkedInto(Object value) {
        return value != null
                && !(value instanceof Enum<?>)
                && value.getClass().getName().startsWith("org.gpuoperator.api.");
    }
}
