package org.gpuoperator.exporter.web;

import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * Hands each TLS handshake the certificate and key currently in the web config, so rotation needs
 * no restart.
 */
final class ReloadingKeyManager extends X509ExtendedKeyManager {

    private static final String ALIAS = "web-config";
    private final WebConfigWatcher watcher;

    ReloadingKeyManager(WebConfigWatcher watcher) {
        this.watcher = watcher;
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
        return matches(keyType) ? ALIAS : null;
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
        return matches(keyType) ? ALIAS : null;
    }

    private boolean matches(String keyType) {
        PrivateKey key = watcher.current().key();
        return key != null
                && (keyType == null
                        || keyType.equals(key.getAlgorithm())
                        || (keyType.startsWith("EC") && key.getAlgorithm().equals("EC")));
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
        return ALIAS.equals(alias) ? watcher.current().chain() : null;
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
        return ALIAS.equals(alias) ? watcher.current().key() : null;
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
        return matches(keyType) ? new String[] {ALIAS} : null;
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
        return null;
    }

    @Override
    public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
        return null;
    }
}
