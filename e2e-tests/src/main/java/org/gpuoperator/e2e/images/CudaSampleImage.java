package org.gpuoperator.e2e.images;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The image that plays NVIDIA's CUDA {@code vectorAdd} sample ({@code
 * nvcr.io/nvidia/k8s/cuda-sample:vectoradd-*}) in the simulated registry: the busybox stand-in's
 * layer plus {@value #SAMPLE}, a shell script with the real sample's output, as the image's
 * command. It passes when the container sees a GPU as the CUDA runtime needs one: a {@code
 * /dev/nvidia<N>} device and {@code /dev/nvidiactl}, as the device plugin and the NVIDIA runtime
 * inject them; otherwise it fails as CUDA does without a device (exit 1).
 */
public final class CudaSampleImage {

    public static final String REF = "localhost/gpuoperator/sim-cuda-vectoradd:1";

    /** The name of its archive among the built images. */
    public static final String NAME = "cuda-vectoradd";

    /** Where the script lives in the image (the real sample's directory). */
    public static final String SAMPLE = "/cuda-samples/vectorAdd";

    /** Bumped when the image changes in a way the input digest does not see. */
    static final String BUILDER_VERSION = "1";

    /** The sample: output and exit code of cuda-samples' vectorAdd for 50000 elements. */
    static final String SCRIPT =
            """
            #!/bin/sh
            # simulated CUDA vectorAdd sample (e2e-tests CudaSampleImage): the real sample's output.
            # The CUDA runtime needs a GPU device node and the control device, as injected by the
            # device plugin and the NVIDIA container runtime.
            echo "[Vector addition of 50000 elements]"
            gpu=""
            for d in /dev/nvidia[0-9]*; do
              if [ -e "$d" ]; then gpu="$d"; break; fi
            done
            if [ -z "$gpu" ] || [ ! -e /dev/nvidiactl ]; then
              echo "Failed to allocate device vector A (error code no CUDA-capable device is detected)!" >&2
              exit 1
            fi
            echo "Copy input data from the host memory to the CUDA device"
            echo "CUDA kernel launch with 196 blocks of 256 threads"
            echo "Copy output data from the CUDA device to the host memory"
            echo "Test PASSED"
            echo "Done"
            """;

    private CudaSampleImage() {}

    /**
     * The archive {@code <outDir>/cuda-vectoradd.oci.tar}, built unless the one there was built
     * from the same busybox, script and builder version.
     */
    public static LocalImages.LocalImage ensure(Path outDir)
            throws IOException, InterruptedException {
        Path archive = LocalImages.archiveIn(outDir, NAME);
        Path digestFile = outDir.resolve(NAME + ".inputs.sha256");
        String digest =
                BUILDER_VERSION
                        + ":"
                        + BusyboxImage.BUILDER_VERSION
                        + ":"
                        + OciArchiveContents.sha256(BusyboxImage.BUSYBOX)
                        + ":"
                        + OciArchiveContents.sha256(
                                SCRIPT.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        if (Files.isRegularFile(archive)
                && Files.isRegularFile(digestFile)
                && Files.readString(digestFile).strip().equals(digest)) {
            return new LocalImages.LocalImage(NAME, REF, archive, true);
        }
        Files.createDirectories(outDir);
        Files.deleteIfExists(digestFile);
        Path work = Files.createTempDirectory(outDir, "cuda-sample-");
        try {
            Path built =
                    BusyboxImage.build(
                            work, REF, List.of(SAMPLE), "/cuda-samples", Map.of(SAMPLE, SCRIPT));
            Files.move(built, archive, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        } finally {
            try (var s = Files.walk(work)) {
                s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        Files.writeString(digestFile, digest + "\n");
        return new LocalImages.LocalImage(NAME, REF, archive, false);
    }
}
