package org.gpuoperator.driver;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.gpuoperator.driver.detect.HostDriverDetector;
import org.gpuoperator.driver.detect.HostDriverDetector.HostDriver;
import org.gpuoperator.driver.host.NvidiaProcFs;
import org.gpuoperator.driver.install.DriverConfig;
import org.gpuoperator.driver.install.DriverInUseException;
import org.gpuoperator.driver.install.DriverInstaller;
import org.gpuoperator.driver.install.DriverInstaller.InstalledDriver;
import org.gpuoperator.driver.install.DriverStepException;
import org.gpuoperator.driver.install.DriverVerifier;
import org.gpuoperator.driver.install.ModulePlan;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.agent.ReadinessFiles;

/**
 * One pass over the driver step, level-triggered: a working host driver is reported as
 * pre-installed; otherwise the container driver is installed (or found installed) and verified.
 * {@code driver-ready} exists exactly when the pass succeeded; on failure it is removed, so the
 * gate holds the node.
 */
public final class DriverAgent {

    private final DriverConfig config;
    private final HostDriverDetector detector;
    private final DriverInstaller installer;
    private final DriverVerifier verifier;
    private final NvidiaProcFs proc;
    private final ReadinessFiles readiness;
    private final EventLog log;
    private String lastDetection;
    private String lastModuleSource;
    private volatile boolean stopping;

    public DriverAgent(
            DriverConfig config,
            HostDriverDetector detector,
            DriverInstaller installer,
            DriverVerifier verifier,
            ReadinessFiles readiness,
            EventLog log) {
        this.config = config;
        this.detector = detector;
        this.installer = installer;
        this.verifier = verifier;
        this.proc = new NvidiaProcFs(config.host());
        this.readiness = readiness;
        this.log = log;
    }

    public DriverStatus reconcile() throws InterruptedException {
        try {
            HostDriver host = detect();
            return host.present() ? hostDriver(host) : containerDriver();
        } catch (DriverInUseException e) {
            readiness.clear(ReadinessFiles.DRIVER);
            return DriverStatus.notReady(stepName(e), e.getMessage(), e.holders());
        } catch (DriverStepException e) {
            readiness.clear(ReadinessFiles.DRIVER);
            return DriverStatus.notReady(stepName(e), e.getMessage(), List.of());
        } catch (RuntimeException e) {
            // An unexpected failure (a file we cannot write, a bug) must not end the daemon: report
            // and retry.
            try {
                readiness.clear(ReadinessFiles.DRIVER);
            } catch (RuntimeException ignored) {
                // reported below
            }
            return DriverStatus.notReady("internal", e.toString(), List.of());
        }
    }

    private HostDriver detect() {
        HostDriver host;
        try {
            host = detector.detect();
        } catch (RuntimeException e) {
            throw new DriverStepException(
                    DriverStepException.Step.DETECT, "host driver detection failed: " + e, e);
        }
        String summary = host.present() ? "present " + host.version() : host.reason();
        if (!summary.equals(lastDetection)) {
            if (host.present()) {
                log.info(
                        "host-driver-found",
                        "version",
                        host.version(),
                        "nvidia-smi",
                        host.nvidiaSmi(),
                        "gpus",
                        host.kernelGpus());
            } else {
                log.info("host-driver-absent", "reason", host.reason());
            }
            lastDetection = summary;
        }
        return host;
    }

    private DriverStatus hostDriver(HostDriver host) {
        int expected = config.expectedGpus() > 0 ? config.expectedGpus() : host.kernelGpus();
        DriverVerifier.Verified v = verifier.verify(expected, host.version());
        Map<String, String> facts =
                DriverReadyFacts.hostDriver(config.host(), host.version(), v.gpus());
        publish(facts);
        return DriverStatus.ready(
                "host",
                "pre-installed host driver "
                        + host.version()
                        + " ("
                        + host.nvidiaSmi()
                        + "), "
                        + v.gpus()
                        + " GPU(s) verified through "
                        + v.source(),
                facts);
    }

    private DriverStatus containerDriver() throws InterruptedException {
        InstalledDriver d = installer.install();
        int expected = config.expectedGpus() > 0 ? config.expectedGpus() : d.kernelGpus();
        DriverVerifier.Verified v =
                verifier.verify(expected, proc.loadedDriverVersion().orElse(null));
        String source = d.moduleSource();
        if (source.equals(new ModulePlan.AlreadyLoaded().source()) && lastModuleSource != null) {
            source = lastModuleSource;
        }
        lastModuleSource = source;
        Map<String, String> facts =
                DriverReadyFacts.containerDriver(
                        config.host(),
                        config.driverRootDir(),
                        d.driverVersion(),
                        v.gpus(),
                        d.kernel(),
                        source);
        publish(facts);
        return DriverStatus.ready(
                "container",
                "container driver "
                        + d.driverVersion()
                        + " on kernel "
                        + d.kernel()
                        + " ("
                        + source
                        + " modules), "
                        + v.gpus()
                        + " GPU(s) verified through "
                        + v.source(),
                facts);
    }

    /**
     * After this, no pass writes driver-ready any more (the agent is stopping and has removed it).
     */
    public void stop() {
        stopping = true;
    }

    /**
     * Writes driver-ready only when its content changes: a pass with nothing to change writes
     * nothing.
     */
    private void publish(Map<String, String> facts) {
        if (stopping) {
            return;
        }
        if (!readiness.read(ReadinessFiles.DRIVER).map(facts::equals).orElse(false)) {
            readiness.markReady(ReadinessFiles.DRIVER, facts);
        }
    }

    private static String stepName(DriverStepException e) {
        return e.step().name().toLowerCase(Locale.ROOT);
    }
}
