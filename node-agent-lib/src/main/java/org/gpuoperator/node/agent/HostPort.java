package org.gpuoperator.node.agent;

import java.net.InetSocketAddress;
import picocli.CommandLine;
import picocli.CommandLine.ITypeConverter;

/**
 * A listen or connect address as Go programs write it: {@code host:port}, {@code :port} (every
 * interface) or {@code [v6-address]:port}. Port 0 asks for any free port.
 */
public record HostPort(String host, int port) {

    public HostPort {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is out of range 0-65535");
        }
    }

    public static HostPort parse(String address) {
        String a = address == null ? "" : address.strip();
        int colon = a.lastIndexOf(':');
        if (colon < 0) {
            throw bad(address);
        }
        String host = a.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        } else if (host.contains(":")) {
            throw bad(address); // an IPv6 address needs brackets, or the port is ambiguous
        }
        try {
            return new HostPort(host, Integer.parseInt(a.substring(colon + 1)));
        } catch (NumberFormatException e) {
            throw bad(address);
        }
    }

    /** Every interface when the host is empty. */
    public InetSocketAddress socketAddress() {
        return host.isEmpty() ? new InetSocketAddress(port) : new InetSocketAddress(host, port);
    }

    @Override
    public String toString() {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }

    private static IllegalArgumentException bad(String address) {
        return new IllegalArgumentException("expected HOST:PORT or :PORT, got '" + address + "'");
    }

    /** For picocli options. */
    public static final class Converter implements ITypeConverter<HostPort> {
        @Override
        public HostPort convert(String value) {
            try {
                return parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(
                        e.getMessage()); // picocli prints it as is
            }
        }
    }
}
