package io.quorumlock.autoconfigure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A throw-away certificate authority and a server certificate it signed for
 * {@code 127.0.0.1} and {@code localhost}, written as PEM files for
 * {@link RedisServers.Builder#tls} and for the client's trust store. Made in pure Java
 * (BouncyCastle), valid for a day, EC P-256.
 *
 * @param directory where the files are
 * @param caCertificate the CA certificate (what a client trusts)
 * @param certificate the server certificate
 * @param privateKey the server's private key (PKCS#8)
 */
public record TestCertificates(Path directory, Path caCertificate, Path certificate, Path privateKey) {

	/**
	 * Generate a CA and a server certificate into a new temp directory.
	 * @return the files
	 */
	public static TestCertificates generate() {
		try {
			Path dir = Files.createTempDirectory("quorumlock-tls-");
			KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
			generator.initialize(new ECGenParameterSpec("secp256r1"));
			Instant now = Instant.now();
			Date from = Date.from(now.minus(Duration.ofHours(1)));
			Date until = Date.from(now.plus(Duration.ofDays(1)));

			KeyPair caKeys = generator.generateKeyPair();
			X500Name caName = new X500Name("CN=quorumlock test CA");
			X509v3CertificateBuilder ca = new JcaX509v3CertificateBuilder(caName, BigInteger.ONE, from, until, caName,
					caKeys.getPublic());
			ca.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
			ca.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
			X509Certificate caCertificate = sign(ca, caKeys);

			KeyPair serverKeys = generator.generateKeyPair();
			X509v3CertificateBuilder server = new JcaX509v3CertificateBuilder(caCertificate, BigInteger.TWO, from,
					until, new X500Name("CN=127.0.0.1"), serverKeys.getPublic());
			server.addExtension(Extension.subjectAlternativeName, false,
					new GeneralNames(new GeneralName[] { new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
							new GeneralName(GeneralName.dNSName, "localhost") }));
			server.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
			server.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
			X509Certificate serverCertificate = sign(server, caKeys);

			TestCertificates files = new TestCertificates(dir, dir.resolve("ca.crt"), dir.resolve("redis.crt"),
					dir.resolve("redis.key"));
			write(files.caCertificate(), caCertificate);
			write(files.certificate(), serverCertificate);
			write(files.privateKey(), new JcaPKCS8Generator(serverKeys.getPrivate(), null));
			for (Path file : new Path[] { files.caCertificate(), files.certificate(), files.privateKey(), dir }) {
				file.toFile().deleteOnExit();
			}
			return files;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot write the test certificates", ex);
		}
		catch (GeneralSecurityException | OperatorCreationException ex) {
			throw new IllegalStateException("Cannot generate the test certificates", ex);
		}
	}

	private static X509Certificate sign(X509v3CertificateBuilder builder, KeyPair issuer)
			throws OperatorCreationException, GeneralSecurityException {
		return new JcaX509CertificateConverter()
			.getCertificate(builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuer.getPrivate())));
	}

	private static void write(Path file, Object pem) throws IOException {
		try (Writer out = Files.newBufferedWriter(file, StandardCharsets.US_ASCII);
				JcaPEMWriter writer = new JcaPEMWriter(out)) {
			writer.writeObject(pem);
		}
	}

}
