package org.gpuoperator.node.agent;

/**
 * A JSON string literal for agents that write small JSON documents by hand (an OCI runtime log
 * line, a JSON patch) without a JSON library on their class path.
 */
public final class JsonStrings {

    private JsonStrings() {}

    /** {@code str} as a quoted JSON string, escaped as RFC 8259 requires. */
    public static String quote(String str) {
        StringBuilder sb = new StringBuilder(str.length() + 2);
        quote(str, sb);
        return sb.toString();
    }

    /** Appends {@code str} to {@code sb} as a quoted JSON string. */
    public static void quote(String str, StringBuilder sb) {
        sb.append('"');
        for (int k = 0; k < str.length(); k++) {
            char c = str.charAt(k);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
