package org.gpuoperator.exporter.web;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the PEM files a web-config names: a certificate chain, and a private key in PKCS#8 ({@code
 * PRIVATE KEY}) or PKCS#1 RSA ({@code RSA PRIVATE KEY}) form.
 */
final class PemFiles {

    private static final Pattern BLOCK =
            Pattern.compile("-----BEGIN ([A-Z ]+)-----([A-Za-z0-9+/=\\s]+)-----END \\1-----");

    private PemFiles() {}

    static List<X509Certificate> certificates(Path file) {
        List<X509Certificate> out = new ArrayList<>();
        try {
            CertificateFactory cf = CertificateFactory.getInstance("X.509");
            Matcher m = BLOCK.matcher(read(file));
            while (m.find()) {
                if (m.group(1).equals("CERTIFICATE")) {
                    out.add(
                            (X509Certificate)
                                    cf.generateCertificate(
                                            new ByteArrayInputStream(decode(m.group(2)))));
                }
            }
        } catch (GeneralSecurityException e) {
            throw new WebConfigException(
                    "cert_file " + file + ": not a valid certificate: " + e.getMessage());
        }
        if (out.isEmpty()) {
            throw new WebConfigException("cert_file " + file + ": no PEM CERTIFICATE block");
        }
        return out;
    }

    static PrivateKey privateKey(Path file) {
        Matcher m = BLOCK.matcher(read(file));
        while (m.find()) {
            byte[] der = decode(m.group(2));
            switch (m.group(1)) {
                case "PRIVATE KEY" -> {
                    for (String alg : List.of("RSA", "EC", "Ed25519", "RSASSA-PSS")) {
                        try {
                            return KeyFactory.getInstance(alg)
                                    .generatePrivate(new PKCS8EncodedKeySpec(der));
                        } catch (GeneralSecurityException tryNext) {
                            // the PKCS#8 header names the algorithm; KeyFactory wants it up front
                        }
                    }
                    throw new WebConfigException(
                            "key_file " + file + ": unsupported PKCS#8 key algorithm");
                }
                case "RSA PRIVATE KEY" -> {
                    try {
                        return KeyFactory.getInstance("RSA")
                                .generatePrivate(new PKCS8EncodedKeySpec(pkcs1ToPkcs8(der)));
                    } catch (GeneralSecurityException e) {
                        throw new WebConfigException(
                                "key_file " + file + ": invalid RSA key: " + e.getMessage());
                    }
                }
                case "EC PRIVATE KEY" ->
                        throw new WebConfigException(
                                "key_file "
                                        + file
                                        + ": SEC1 'EC PRIVATE KEY' is not supported; convert it with 'openssl pkcs8 -topk8 -nocrypt'");
                default -> {}
            }
        }
        throw new WebConfigException("key_file " + file + ": no PEM PRIVATE KEY block");
    }

    /**
     * Wraps a PKCS#1 RSAPrivateKey in a PKCS#8 PrivateKeyInfo (version 0, rsaEncryption, NULL
     * params).
     */
    private static byte[] pkcs1ToPkcs8(byte[] pkcs1) {
        byte[] algId = {
            0x30,
            0x0d,
            0x06,
            0x09,
            0x2a,
            (byte) 0x86,
            0x48,
            (byte) 0x86,
            (byte) 0xf7,
            0x0d,
            0x01,
            0x01,
            0x01,
            0x05,
            0x00
        };
        byte[] version = {0x02, 0x01, 0x00};
        byte[] octet = tlv(0x04, pkcs1);
        byte[] body = new byte[version.length + algId.length + octet.length];
        System.arraycopy(version, 0, body, 0, version.length);
        System.arraycopy(algId, 0, body, version.length, algId.length);
        System.arraycopy(octet, 0, body, version.length + algId.length, octet.length);
        return tlv(0x30, body);
    }

    private static byte[] tlv(int tag, byte[] value) {
        int n = value.length;
        byte[] len =
                n < 0x80
                        ? new byte[] {(byte) n}
                        : n < 0x100
                                ? new byte[] {(byte) 0x81, (byte) n}
                                : n < 0x10000
                                        ? new byte[] {(byte) 0x82, (byte) (n >> 8), (byte) n}
                                        : new byte[] {
                                            (byte) 0x83, (byte) (n >> 16), (byte) (n >> 8), (byte) n
                                        };
        byte[] out = new byte[1 + len.length + n];
        out[0] = (byte) tag;
        System.arraycopy(len, 0, out, 1, len.length);
        System.arraycopy(value, 0, out, 1 + len.length, n);
        return out;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new WebConfigException("cannot read " + file + ": " + e.getMessage());
        }
    }

    private static byte[] decode(String base64) {
        return Base64.getMimeDecoder().decode(base64.replaceAll("\\s", ""));
    }
}
