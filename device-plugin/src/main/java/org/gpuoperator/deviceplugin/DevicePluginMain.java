package org.gpuoperator.deviceplugin;

import org.gpuoperator.node.agent.VersionProvider;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of `device-plugin`: Kubelet device plugin for nvidia.com/gpu. */
@Command(name = "device-plugin", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Kubelet device plugin for nvidia.com/gpu.")
public final class DevicePluginMain implements Runnable {

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new DevicePluginMain()).execute(args));
    }
}
