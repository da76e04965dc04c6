package org.gpuoperator.exporter.web;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed certificate for 127.0.0.1, made by the JDK's keytool run as a process, written as
 * PEM files.
 */
final class TestCertificates {

    record Pem(Path cert, Path key, X509Certificate certificate) {}

    private TestCertificates() {}

    /** One certificate per name, keytool processes run side by side (each is a JVM start). */
    static java.util.List<Pem> generate(Path dir, String... names) throws Exception {
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        java.util.List<Process> running = new java.util.ArrayList<>();
        for (String name : names) {
            running.add(
                    new ProcessBuilder(
                                    keytool.toString(),
                                    "-genkeypair",
                                    "-alias",
                                    "exporter",
                                    "-keyalg",
                                    "EC",
                                    "-groupname",
                                    "secp256r1",
                                    "-validity",
                                    "2",
                                    "-dname",
                                    "CN=localhost",
                                    "-ext",
                                    "SAN=ip:127.0.0.1,dns:localhost",
                                    "-keystore",
                                    dir.resolve(name + ".p12").toString(),
                                    "-storetype",
                                    "PKCS12",
                                    "-storepass",
                                    "changeit",
                                    "-keypass",
                                    "changeit")
                            .redirectErrorStream(true)
                            .start());
        }
        java.util.List<Pem> out = new java.util.ArrayList<>();
        for (int i = 0; i < names.length; i++) {
            Process p = running.get(i);
            String log = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("keytool failed: " + log);
            }
            out.add(toPem(dir, names[i]));
        }
        return out;
    }

    private static Pem toPem(Path dir, String name) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(dir.resolve(name + ".p12"))) {
            store.load(in, "changeit".toCharArray());
        }
        X509Certificate cert = (X509Certificate) store.getCertificate("exporter");
        PrivateKey key = (PrivateKey) store.getKey("exporter", "changeit".toCharArray());
        Path certFile = dir.resolve(name + ".crt");
        Path keyFile = dir.resolve(name + ".key");
        Files.writeString(certFile, pem("CERTIFICATE", cert.getEncoded()));
        Files.writeString(keyFile, pem("PRIVATE KEY", key.getEncoded()));
        return new Pem(certFile, keyFile, cert);
    }

    static String pem(String type, byte[] der) {
        return "-----BEGIN "
                + type
                + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der)
                + "\n-----END "
                + type
                + "-----\n";
    }
}
