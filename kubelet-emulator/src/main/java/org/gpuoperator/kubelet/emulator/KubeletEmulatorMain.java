package org.gpuoperator.kubelet.emulator;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.Device;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.agent.VersionProvider;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Runs the {@link KubeletEmulator} as its own process, for the simulated cluster and for measuring
 * the plugin from outside: {@code java -jar kubelet-emulator/target/kubelet-emulator.jar
 * --device-plugin-path DIR} (its dependencies in {@code target/lib}). Logs each registration and
 * each change of allocatable, one logfmt line each.
 */
@Command(
        name = "kubelet-emulator",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description =
                "Serves the kubelet's device plugin Registration API on DIR/kubelet.sock and watches plugins.")
public final class KubeletEmulatorMain implements Callable<Integer> {

    @Option(
            names = "--device-plugin-path",
            required = true,
            paramLabel = "DIR",
            description = "Directory for kubelet.sock and the plugin sockets.")
    Path dir;

    @Override
    public Integer call() throws InterruptedException {
        EventLog log = new EventLog("kubelet-emulator");
        KubeletEmulator kubelet = KubeletEmulator.start(dir);
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(
                        new Thread(
                                () -> {
                                    kubelet.close();
                                    stop.countDown();
                                }));
        log.info("listening", "socket", kubelet.socket());
        int seen = 0;
        Map<String, Integer> allocatable = new HashMap<>();
        while (!stop.await(200, java.util.concurrent.TimeUnit.MILLISECONDS)) {
            List<KubeletEmulator.Registration> regs = kubelet.registrations();
            for (; seen < regs.size(); seen++) {
                log.info(
                        "registered",
                        "resource",
                        regs.get(seen).resourceName(),
                        "endpoint",
                        regs.get(seen).request().getEndpoint());
            }
            for (String r : kubelet.resources()) {
                List<Device> devices = kubelet.devices(r);
                int now = kubelet.allocatable(r);
                if (!Integer.valueOf(now).equals(allocatable.put(r, now))) {
                    log.info(
                            "allocatable",
                            "resource",
                            r,
                            "allocatable",
                            now,
                            "capacity",
                            devices.size());
                }
            }
        }
        return 0;
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new KubeletEmulatorMain()).execute(args));
    }
}
