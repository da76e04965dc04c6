package org.gpuoperator.validator.driver;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * One NVIDIA device node under {@code /dev}: its file name and device number.
 *
 * @param name {@code nvidiactl}, {@code nvidia0}, ...
 */
public record DeviceNode(String name, int major, int minor) {

    /** The character-device major of {@code /dev/nvidia*} (nvidia.ko's fixed number). */
    public static final int NVIDIA_MAJOR = 195;

    /** nvidiactl's minor on that major. */
    public static final int CONTROL_MINOR = 255;

    /**
     * Reads the device number of {@code file}. A file that is not a character device (the simulated
     * node's stand-ins) gets nvidia.ko's fixed numbering: 195:N for nvidiaN, 195:255 for nvidiactl.
     */
    public static DeviceNode read(Path file) throws IOException {
        String name = file.getFileName().toString();
        Object mode = Files.getAttribute(file, "unix:mode", LinkOption.NOFOLLOW_LINKS);
        boolean charDevice = mode instanceof Integer m && (m & 0170000) == 0020000;
        if (charDevice) {
            long rdev = (Long) Files.getAttribute(file, "unix:rdev", LinkOption.NOFOLLOW_LINKS);
            return new DeviceNode(name, major(rdev), minor(rdev));
        }
        return standard(name);
    }

    /** nvidia.ko's numbering for {@code nvidiactl} and {@code nvidia<N>}. */
    public static DeviceNode standard(String name) {
        if (name.equals("nvidiactl")) {
            return new DeviceNode(name, NVIDIA_MAJOR, CONTROL_MINOR);
        }
        if (name.matches("nvidia\\d+")) {
            return new DeviceNode(name, NVIDIA_MAJOR, Integer.parseInt(name.substring(6)));
        }
        throw new IllegalArgumentException("not an NVIDIA GPU device node: " + name);
    }

    /** Linux's encoding of dev_t (glibc gnu_dev_major). */
    static int major(long rdev) {
        return (int) (((rdev >>> 8) & 0xfff) | ((rdev >>> 32) & ~0xfffL));
    }

    /** Linux's encoding of dev_t (glibc gnu_dev_minor). */
    static int minor(long rdev) {
        return (int) ((rdev & 0xff) | ((rdev >>> 12) & ~0xffL));
    }
}
