package org.gpuoperator.controller.reconcile;

import java.util.Arrays;

/**
 * Cuts the {@link UnreadFields} out of a watch event's JSON text before it is parsed. A kubelet's
 * status report brings its whole node, and most of its bytes are the image list and {@code
 * managedFields}: skipping them inside Jackson still tokenizes every name in them (each through the
 * parser's symbol table), where this scan only looks for quotes and brackets.
 *
 * <p>Only where the API server writes them: {@code managedFields} in the event object's {@code
 * metadata}, and a Node's {@code status.images}, {@code volumesInUse}, {@code volumesAttached} and
 * its conditions' {@code lastHeartbeatTime} once its {@code kind} has been read (the API server
 * writes {@code kind} first). The scan also notes the event's type and the object's {@code uid} and
 * {@code resourceVersion}, which {@link RepeatedNodeReports} needs to know a node's report again
 * without parsing it. Anything else, text that is not a JSON object, or a field in another place,
 * is left to the parser, which skips the same fields ({@link ControllerSerialization}): this is
 * only the faster way to the same object.
 */
final class UnreadJson {

    private static final String[] METADATA =
            names(io.fabric8.kubernetes.api.model.ObjectMeta.class);
    private static final String[] NODE_STATUS =
            names(io.fabric8.kubernetes.api.model.NodeStatus.class);
    private static final String[] NODE_CONDITION =
            names(io.fabric8.kubernetes.api.model.NodeCondition.class);

    private static String[] names(Class<?> type) {
        return UnreadFields.ALL.stream()
                .filter(f -> f.type() == type)
                .map(UnreadFields.Field::json)
                .toArray(String[]::new);
    }

    /** Where an object is: what its members may hold. */
    private enum Place {
        /** the event: only its object is read further */
        EVENT,
        /** the event's object: its metadata, and a Node's status */
        OBJECT,
        METADATA,
        NODE_STATUS,
        /** a Node's {@code status.conditions}: an array of {@link #NODE_CONDITION} */
        NODE_CONDITIONS,
        NODE_CONDITION,
        /** nothing to cut: skipped whole */
        OTHER
    }

    private final String json;

    /** cut ranges, start and end (exclusive), in order */
    private int[] cuts = new int[8];

    private int cutCount;

    /** what the scan noted; null where not seen */
    private String type;

    private boolean objectIsNode;
    private String uid;

    /** the object's resourceVersion, its value's range (inside the quotes); -1 when not seen */
    private int versionStart = -1;

    private int versionEnd = -1;

    /** the event's object, its range; -1 when not seen */
    private int objectStart = -1;

    private int objectEnd = -1;

    private UnreadJson(String json) {
        this.json = json;
    }

    /**
     * A watch event's text without its unread fields, and what the scan saw of it: the event's
     * {@code type}, whether its object is a Node, the object's {@code uid}, and where in {@code
     * text} its {@code resourceVersion}'s value is and the object itself ({@code versionStart} and
     * {@code objectStart} -1 when not seen). Text given to the parser as it came shows nothing
     * ({@link #nothingSeen}).
     */
    record Scanned(
            String text,
            String type,
            boolean node,
            String uid,
            int versionStart,
            int versionEnd,
            int objectStart,
            int objectEnd) {

        static Scanned nothingSeen(String text) {
            return new Scanned(text, null, false, null, -1, -1, -1, -1);
        }

        /** The object's resourceVersion, or null. */
        String resourceVersion() {
            return versionStart < 0 ? null : text.substring(versionStart, versionEnd);
        }
    }

    /** {@code json} without the unread fields, or {@code json} itself when none is there. */
    static String strip(String json) {
        return scan(json).text();
    }

    /** {@code json} without the unread fields, and what the scan saw of it. */
    static Scanned scan(String json) {
        UnreadJson scan = new UnreadJson(json);
        try {
            int start = scan.whitespace(0);
            if (start >= json.length() || json.charAt(start) != '{') {
                return Scanned.nothingSeen(json);
            }
            scan.object(start, Place.EVENT);
        } catch (Malformed | StringIndexOutOfBoundsException e) {
            return Scanned.nothingSeen(json); // the parser says what is wrong with it
        }
        String text = scan.cutCount == 0 ? json : scan.withoutCuts();
        int shift = scan.versionStart < 0 ? 0 : scan.cutBefore(scan.versionStart);
        boolean object = scan.objectStart >= 0;
        return new Scanned(
                text,
                scan.type,
                scan.objectIsNode,
                scan.uid,
                scan.versionStart < 0 ? -1 : scan.versionStart - shift,
                scan.versionStart < 0 ? -1 : scan.versionEnd - shift,
                object ? scan.objectStart - scan.cutBefore(scan.objectStart) : -1,
                object ? scan.objectEnd - scan.cutBefore(scan.objectEnd) : -1);
    }

    /** How many characters the cuts take out before {@code index} (never inside a cut). */
    private int cutBefore(int index) {
        int out = 0;
        for (int k = 0; k < cutCount && cuts[2 * k] < index; k++) {
            out += cuts[2 * k + 1] - cuts[2 * k];
        }
        return out;
    }

    /**
     * The object starting at {@code i} ({@code '{'}); cuts its unread members.
     *
     * @return the index after its {@code '}'}
     */
    private int object(int i, Place place) {
        boolean node = false;
        boolean keptAny = false; // a member before this one stays
        int commaBefore = -1;
        int memberStart = i + 1;
        i = whitespace(i + 1);
        if (json.charAt(i) == '}') {
            return i + 1;
        }
        while (true) {
            if (json.charAt(i) != '"') {
                throw new Malformed();
            }
            int keyStart = i + 1;
            int keyEnd = stringEnd(i) - 1;
            i = whitespace(keyEnd + 1);
            if (json.charAt(i) != ':') {
                throw new Malformed();
            }
            int valueStart = whitespace(i + 1);
            int valueEnd;
            if (unread(place, keyStart, keyEnd)) {
                valueEnd = skip(valueStart);
                int after = whitespace(valueEnd);
                if (keptAny) {
                    cut(commaBefore, valueEnd); // ,"name":value
                } else {
                    // "name":value, or the last one left
                    cut(memberStart, json.charAt(after) == ',' ? after + 1 : valueEnd);
                }
            } else {
                keptAny = true;
                Place inner = inner(place, node, keyStart, keyEnd);
                if (inner == Place.NODE_CONDITIONS && json.charAt(valueStart) == '[') {
                    valueEnd = array(valueStart, Place.NODE_CONDITION);
                } else if (inner != Place.OTHER
                        && inner != Place.NODE_CONDITIONS
                        && json.charAt(valueStart) == '{') {
                    valueEnd = object(valueStart, inner);
                    if (inner == Place.OBJECT) {
                        objectStart = valueStart;
                        objectEnd = valueEnd;
                    }
                } else {
                    valueEnd = skip(valueStart);
                    if (place == Place.OBJECT
                            && is("kind", keyStart, keyEnd)
                            && json.regionMatches(valueStart, "\"Node\"", 0, 6)
                            && valueEnd == valueStart + 6) {
                        node = true;
                        objectIsNode = true;
                    }
                    note(place, keyStart, keyEnd, valueStart, valueEnd);
                }
            }
            i = whitespace(valueEnd);
            char c = json.charAt(i);
            if (c == '}') {
                return i + 1;
            }
            if (c != ',') {
                throw new Malformed();
            }
            commaBefore = i;
            memberStart = i + 1;
            i = whitespace(i + 1);
        }
    }

    /**
     * The elements of the array starting at {@code i} ({@code '['}); an object element is read as
     * {@code element}, anything else skipped.
     *
     * @return the index after its {@code ']'}
     */
    private int array(int i, Place element) {
        i = whitespace(i + 1);
        if (json.charAt(i) == ']') {
            return i + 1;
        }
        while (true) {
            int end = json.charAt(i) == '{' ? object(i, element) : skip(i);
            i = whitespace(end);
            char c = json.charAt(i);
            if (c == ']') {
                return i + 1;
            }
            if (c != ',') {
                throw new Malformed();
            }
            i = whitespace(i + 1);
        }
    }

    /** Notes the event's type and the object's uid and resourceVersion (plain strings only). */
    private void note(Place place, int keyStart, int keyEnd, int valueStart, int valueEnd) {
        boolean type = place == Place.EVENT && is("type", keyStart, keyEnd);
        boolean uid = place == Place.METADATA && is("uid", keyStart, keyEnd);
        boolean version = place == Place.METADATA && is("resourceVersion", keyStart, keyEnd);
        if (!(type || uid || version)
                || json.charAt(valueStart) != '"'
                || json.indexOf('\\', valueStart, valueEnd) >= 0) {
            return; // not one of them, not a string, or one with escapes: nothing noted
        }
        if (type) {
            this.type = json.substring(valueStart + 1, valueEnd - 1);
        } else if (uid) {
            this.uid = json.substring(valueStart + 1, valueEnd - 1);
        } else {
            versionStart = valueStart + 1;
            versionEnd = valueEnd - 1;
        }
    }

    private boolean unread(Place place, int keyStart, int keyEnd) {
        String[] names =
                switch (place) {
                    case METADATA -> METADATA;
                    case NODE_STATUS -> NODE_STATUS;
                    case NODE_CONDITION -> NODE_CONDITION;
                    default -> null;
                };
        if (names != null) {
            for (String name : names) {
                if (is(name, keyStart, keyEnd)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Where a member's object value is, seen from {@code place}. */
    private Place inner(Place place, boolean node, int keyStart, int keyEnd) {
        return switch (place) {
            case EVENT -> is("object", keyStart, keyEnd) ? Place.OBJECT : Place.OTHER;
            case OBJECT -> {
                if (is("metadata", keyStart, keyEnd)) {
                    yield Place.METADATA;
                }
                yield node && is("status", keyStart, keyEnd) ? Place.NODE_STATUS : Place.OTHER;
            }
            case NODE_STATUS ->
                    is("conditions", keyStart, keyEnd) ? Place.NODE_CONDITIONS : Place.OTHER;
            default -> Place.OTHER;
        };
    }

    private boolean is(String name, int keyStart, int keyEnd) {
        return keyEnd - keyStart == name.length()
                && json.regionMatches(keyStart, name, 0, name.length());
    }

    /** The index after the value at {@code i}, read only as far as quotes and brackets. */
    private int skip(int i) {
        char c = json.charAt(i);
        if (c == '"') {
            return stringEnd(i);
        }
        if (c == '{' || c == '[') {
            // open brackets, one bit each (1: an array), so that a mismatched one is seen
            long open = 0;
            int depth = 0;
            while (true) {
                c = json.charAt(i);
                if (c == '"') {
                    i = stringEnd(i);
                    continue;
                }
                if (c == '{' || c == '[') {
                    if (++depth > 63) {
                        throw new Malformed();
                    }
                    open = open << 1 | (c == '[' ? 1 : 0);
                } else if (c == '}' || c == ']') {
                    if ((open & 1) != (c == ']' ? 1 : 0)) {
                        throw new Malformed();
                    }
                    open >>>= 1;
                    if (--depth == 0) {
                        return i + 1;
                    }
                }
                i++;
            }
        }
        // a number, true, false or null
        int start = i;
        while (i < json.length() && ",}] \t\r\n".indexOf(json.charAt(i)) < 0) {
            i++;
        }
        if (i == start) {
            throw new Malformed();
        }
        return i;
    }

    /**
     * The index after the string whose opening quote is at {@code i}. {@code indexOf} searches many
     * characters at a time; a quote after an odd number of backslashes is escaped.
     */
    private int stringEnd(int i) {
        int from = i + 1;
        while (true) {
            int quote = json.indexOf('"', from);
            if (quote < 0) {
                throw new Malformed();
            }
            int backslashes = 0;
            while (json.charAt(quote - 1 - backslashes) == '\\') {
                backslashes++;
            }
            if (backslashes % 2 == 0) {
                return quote + 1;
            }
            from = quote + 1;
        }
    }

    private int whitespace(int i) {
        while (i < json.length()) {
            char c = json.charAt(i);
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                break;
            }
            i++;
        }
        return i;
    }

    private void cut(int start, int end) {
        if (2 * cutCount + 2 > cuts.length) {
            cuts = Arrays.copyOf(cuts, cuts.length * 2);
        }
        cuts[2 * cutCount] = start;
        cuts[2 * cutCount + 1] = end;
        cutCount++;
    }

    private String withoutCuts() {
        int kept = json.length();
        for (int k = 0; k < cutCount; k++) {
            kept -= cuts[2 * k + 1] - cuts[2 * k];
        }
        StringBuilder out = new StringBuilder(kept);
        int from = 0;
        for (int k = 0; k < cutCount; k++) {
            out.append(json, from, cuts[2 * k]);
            from = cuts[2 * k + 1];
        }
        return out.append(json, from, json.length()).toString();
    }

    /** Not JSON as expected: the text goes to the parser as it is. */
    private static final class Malformed extends RuntimeException {
        Malformed() {
            super(null, null, false, false);
        }
    }
}
