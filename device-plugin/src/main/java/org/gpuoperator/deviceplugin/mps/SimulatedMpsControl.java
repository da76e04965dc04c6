package org.gpuoperator.deviceplugin.mps;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.gpuoperator.node.inventory.Gpu;

/**
 * The MPS control daemon of simulated GPUs: a Unix socket {@code control} in the pipe directory
 * that answers the control commands upstream's daemon uses ({@code
 * set_default_active_thread_percentage}, {@code set_default_device_pinned_mem_limit}, their {@code
 * get_} forms, {@code quit}), and a {@code control.log} in the log directory. It lives in the
 * process that started it, so it dies with the pod, as the real daemon does with its container. The
 * wire format is one line each way (NVIDIA's own client protocol is not public).
 */
public final class SimulatedMpsControl implements MpsControl {

    @Override
    public Daemon start(MpsPaths paths, List<Gpu> gpus) throws IOException {
        Files.createDirectories(paths.pipe());
        Files.createDirectories(paths.log());
        Files.createDirectories(paths.shm());
        Files.deleteIfExists(paths.controlSocket()); // a dead daemon's socket
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(paths.controlSocket()));
        SimulatedDaemon d = new SimulatedDaemon(paths, server, gpus);
        d.log("Starting control daemon for " + gpus.size() + " GPU(s)");
        Thread.ofVirtual().name("mps-control-" + paths.resource()).start(d::serve);
        return d;
    }

    @Override
    public String send(MpsPaths paths, String command) throws IOException {
        try (SocketChannel ch =
                SocketChannel.open(UnixDomainSocketAddress.of(paths.controlSocket()))) {
            OutputStream out = Channels.newOutputStream(ch);
            out.write((command + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            BufferedReader in =
                    new BufferedReader(
                            new InputStreamReader(
                                    Channels.newInputStream(ch), StandardCharsets.UTF_8));
            String reply = in.readLine();
            if (reply == null) {
                throw new IOException(
                        paths.controlSocket() + ": the MPS control daemon closed without a reply");
            }
            return reply.trim();
        } catch (IOException e) {
            throw new IOException(
                    paths.controlSocket()
                            + ": no MPS control daemon answers ("
                            + e.getMessage()
                            + ")",
                    e);
        }
    }

    /** Simulated GPUs have no compute mode to set. */
    @Override
    public void computeMode(Gpu gpu, boolean exclusiveProcess) {}

    private static final class SimulatedDaemon implements Daemon {
        private final MpsPaths paths;
        private final ServerSocketChannel server;
        private final List<Gpu> gpus;
        private final Map<Integer, String> pinned = new ConcurrentHashMap<>();
        private volatile String threads = "100.0";
        private volatile boolean closed;

        SimulatedDaemon(MpsPaths paths, ServerSocketChannel server, List<Gpu> gpus) {
            this.paths = paths;
            this.server = server;
            this.gpus = List.copyOf(gpus);
        }

        void serve() {
            while (!closed) {
                try (SocketChannel ch = server.accept()) {
                    BufferedReader in =
                            new BufferedReader(
                                    new InputStreamReader(
                                            Channels.newInputStream(ch), StandardCharsets.UTF_8));
                    String line = in.readLine();
                    if (line == null) {
                        continue;
                    }
                    String reply = handle(line.trim());
                    OutputStream out = Channels.newOutputStream(ch);
                    out.write((reply + "\n").getBytes(StandardCharsets.UTF_8));
                    out.flush();
                } catch (IOException e) {
                    if (!closed) {
                        log("Accept failed: " + e.getMessage());
                    }
                }
            }
        }

        /** One command; replies as the real daemon prints them. */
        String handle(String command) {
            log("Command " + command);
            String[] w = command.split("\\s+");
            return switch (w[0]) {
                case "get_default_active_thread_percentage" -> threads;
                case "set_default_active_thread_percentage" ->
                        w.length == 2 && w[1].matches("\\d+(\\.\\d+)?")
                                ? (threads = Double.toString(Double.parseDouble(w[1])))
                                : "Invalid argument";
                case "set_default_device_pinned_mem_limit" -> setPinned(w);
                case "get_default_device_pinned_mem_limit" ->
                        w.length == 2
                                ? pinned.getOrDefault(parse(w[1]), "none")
                                : "Invalid argument";
                case "quit" -> {
                    close();
                    yield "";
                }
                default -> "Unrecognized command " + w[0];
            };
        }

        private String setPinned(String[] w) {
            if (w.length != 3 || !w[2].matches("\\d+[MG]")) {
                return "Invalid argument";
            }
            int index = parse(w[1]);
            if (gpus.stream().noneMatch(g -> g.index() == index)) {
                return "Invalid device " + w[1];
            }
            pinned.put(index, w[2]);
            return w[2];
        }

        private static int parse(String s) {
            try {
                return Integer.parseInt(s);
            } catch (NumberFormatException e) {
                return -1;
            }
        }

        void log(String line) {
            try {
                Files.writeString(
                        paths.log().resolve(MpsPaths.CONTROL_LOG),
                        "[" + Instant.now() + "] " + line + "\n",
                        StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
            } catch (IOException ignored) {
                // a log that cannot be written must not stop the daemon
            }
        }

        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            log("Exiting");
            try {
                server.close();
                Files.deleteIfExists(paths.controlSocket());
            } catch (IOException ignored) {
                // already gone
            }
        }
    }
}
