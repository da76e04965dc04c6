package org.gpuoperator.migmanager.config;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * A GPU's PCI device id in mig-parted's form {@code 0xDDDDVVVV}: device id, then vendor id ({@code
 * 10DE} for NVIDIA), as {@code device-filter} writes them.
 */
public final class PciDeviceId {

    private static final Pattern FORM = Pattern.compile("0[xX][0-9a-fA-F]{8}");

    private PciDeviceId() {}

    /** Whether {@code text} is in the form {@code 0xDDDDVVVV} (any case). */
    public static boolean valid(String text) {
        return text != null && FORM.matcher(text).matches();
    }

    /**
     * The one spelling ids are compared in: {@code 0x} and upper-case hex ({@code 0x20B010DE}).
     *
     * @throws IllegalArgumentException when {@code text} is not of the form {@code 0xDDDDVVVV}
     */
    public static String normalize(String text) {
        if (!valid(text)) {
            throw new IllegalArgumentException(
                    "not a PCI device id of the form 0xDDDDVVVV: '" + text + "'");
        }
        return "0x" + text.substring(2).toUpperCase(Locale.ROOT);
    }

    /** The id of a 32-bit value as YAML reads an unquoted {@code 0x20B010DE}. */
    public static String of(long value) {
        return String.format(Locale.ROOT, "0x%08X", value);
    }
}
