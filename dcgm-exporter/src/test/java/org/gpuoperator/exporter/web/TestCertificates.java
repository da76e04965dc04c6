package org.gpuoperator.exporter.web;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.concurrent.TimeUnit;

/** A self-signed certificate for 127.0.0.1, made by the JDK's keytool run as a process, written as PEM files. */
final class TestCertificates {

    record Pem(Path cert, Path key, X509Certificate certificate) {}

    private TestCertificates() {}

    static Pem generate(Path dir, String name) throws Exception {
        Path ks = dir.resolve(name + ".p12");
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process p = new ProcessBuilder(keytool.toString(), "-genkeypair", "-alias", "exporter", "-keyalg", "EC",
                "-groupname", "secp256r1", "-validity", "2", "-dname", "CN=localhost",
                "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-keystore", ks.toString(), "-storetype", "PKCS12",
                "-storepass", "changeit", "-keypass", "changeit")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("keytool failed: " + out);
        }
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(ks)) {
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
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }
}
