package org.gpuoperator.e2e.apiserver;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The API server's TLS key and certificate: one self-signed EC certificate, marked as a CA, with
 * the SANs clients use (127.0.0.1, localhost, and the pod-network gateways). Clients trust it as
 * their certificate authority (kubeconfig certificate-authority-data, a pod's ca.crt). Made by the
 * JDK's keytool, run as a process, so no crypto library and no JDK-internal API is needed.
 *
 * @param keyStore PKCS12 file holding the key and certificate
 */
public record TlsMaterial(Path keyStore, String keyStorePassword, String certificatePem) {

    /** Generates into {@code dir} (created when missing); {@code extraIps} are added as IP SANs. */
    public static TlsMaterial generate(Path dir, List<String> extraIps) throws IOException {
        for (String ip : extraIps) {
            if (!ip.matches("[0-9.]+|[0-9a-fA-F:]+")) {
                throw new IllegalArgumentException(
                        "not an IP address for the API server certificate: " + ip);
            }
        }
        Files.createDirectories(dir);
        Path store = dir.resolve("apiserver.p12");
        Files.deleteIfExists(store);
        byte[] secret = new byte[12];
        new SecureRandom().nextBytes(secret);
        String password = HexFormat.of().formatHex(secret);
        StringBuilder san = new StringBuilder("san=ip:127.0.0.1,dns:localhost");
        extraIps.forEach(ip -> san.append(",ip:").append(ip));
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        List<String> cmd =
                new ArrayList<>(
                        List.of(
                                keytool.toString(),
                                "-genkeypair",
                                "-alias",
                                "apiserver",
                                "-keyalg",
                                "EC",
                                "-groupname",
                                "secp256r1",
                                "-sigalg",
                                "SHA256withECDSA",
                                "-dname",
                                "CN=simulated-apiserver",
                                "-ext",
                                san.toString(),
                                "-ext",
                                "bc:c",
                                "-ext",
                                "ku:c=digitalSignature,keyCertSign",
                                "-ext",
                                "eku=serverAuth,clientAuth",
                                "-validity",
                                "3650",
                                "-keystore",
                                store.toString(),
                                "-storetype",
                                "PKCS12",
                                "-storepass",
                                password,
                                "-keypass",
                                password));
        Path log = dir.resolve("keytool.log");
        Process p =
                new ProcessBuilder(cmd)
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile())
                        .start();
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IOException("keytool failed: " + Files.readString(log));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while generating the API server certificate", e);
        }
        return new TlsMaterial(store, password, pem(store, password));
    }

    private static String pem(Path store, String password) throws IOException {
        try (InputStream in = Files.newInputStream(store)) {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(in, password.toCharArray());
            Certificate cert = ks.getCertificate("apiserver");
            return "-----BEGIN CERTIFICATE-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(cert.getEncoded())
                    + "\n-----END CERTIFICATE-----\n";
        } catch (GeneralSecurityException e) {
            throw new IOException(
                    "cannot read the generated certificate from " + store + ": " + e.getMessage(),
                    e);
        }
    }
}
