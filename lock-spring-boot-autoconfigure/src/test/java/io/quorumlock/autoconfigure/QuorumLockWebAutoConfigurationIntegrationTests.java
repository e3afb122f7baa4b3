package io.quorumlock.autoconfigure;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.MvcResult;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.WebApplicationContext;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

import io.quorumlock.DistributedLock;
import io.quorumlock.DistributedLockRegistry;
import io.quorumlock.Lease;
import io.quorumlock.LockNotAcquiredException;
import io.quorumlock.LockRequest;
import io.quorumlock.QuorumUnavailableException;
import io.quorumlock.testing.RedisServer;
import io.quorumlock.testing.RedisServers;
import io.quorumlock.web.LockProblemDetails;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;

/**
 * {@link QuorumLockWebAutoConfiguration} under Spring MVC on three real masters: a caller
 * gets the lock, the key and a reason category, never a master's host or port, unless
 * {@code quorumlock.problem-details.verbose=true}; the server logs the whole message; and
 * the application's own exception handlers still win.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
@ExtendWith(OutputCaptureExtension.class)
class QuorumLockWebAutoConfigurationIntegrationTests {

	@RegisterExtension
	static final RedisServers redis = RedisServers.start(3);

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(QuorumLockAutoConfiguration.class, QuorumLockWebAutoConfiguration.class))
		.withUserConfiguration(Payments.class)
		.withPropertyValues(ObservabilityContexts.properties(redis));

	@Test
	void runWhenNoQuorumShouldAnswer503NamingNoMasterAndLogTheWholeStory(CapturedOutput output) {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(LockProblemDetails.class);
			MockMvc mvc = mvc(context);
			redis.node(1).kill();
			redis.node(2).kill();
			MvcResult result = await().atMost(Duration.ofSeconds(20))
				.until(() -> mvc.perform(post("/pay/42")).andReturn(),
						(answer) -> answer.getResponse().getStatus() == 503);
			assertThat(result.getResponse().getHeader("Retry-After")).isEqualTo("1");
			assertThat(result.getResponse().getContentType()).startsWith("application/problem+json");
			String body = result.getResponse().getContentAsString();
			assertThat(body).contains("\"title\":\"Lock quorum unavailable\"")
				.contains("lock 'payments' key 'lock:payments:{42}': not acquired, no quorum: masters not connected");
			for (RedisServer node : redis.nodes()) {
				assertThat(body).doesNotContain(String.valueOf(node.port()));
			}
			assertThat(body).doesNotContain("127.0.0.1", "last attempt", "voting");
			// the operator's story: once, with every master that failed
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(output)
					.contains("quorumlock: answered 503 Service Unavailable: lock "
							+ "'payments' key 'lock:payments:{42}': quorum unavailable")
					.contains("127.0.0.1:" + redis.node(1).port() + ": not connected"));
			mvc.perform(post("/pay/42"));
			assertThat(count(output.getAll(), "quorumlock: answered 503")).isOne();
		});
	}

	@Test
	void runWhenVerboseShouldAnswerTheWholeMessage() {
		this.runner.withPropertyValues("quorumlock.problem-details.verbose=true").run((context) -> {
			MockMvc mvc = mvc(context);
			redis.node(1).kill();
			redis.node(2).kill();
			MvcResult result = await().atMost(Duration.ofSeconds(20))
				.until(() -> mvc.perform(post("/pay/43")).andReturn(),
						(answer) -> answer.getResponse().getStatus() == 503);
			assertThat(result.getResponse().getContentAsString())
				.contains("127.0.0.1:" + redis.node(1).port() + ": not connected");
		});
	}

	@Test
	void runWhenHeldElsewhereShouldAnswer423NamingNoMaster(CapturedOutput output) {
		for (RedisServer node : redis.nodes()) {
			node.call("SET", "lock:payments:{7}", "another-holder", "PX", "60000");
		}
		this.runner.run((context) -> {
			MvcResult result = mvc(context).perform(post("/pay/7")).andReturn();
			assertThat(result.getResponse().getStatus()).isEqualTo(423);
			assertThat(result.getResponse().getHeader("Retry-After")).isEqualTo("1");
			String body = result.getResponse().getContentAsString();
			assertThat(body).contains("lock 'payments' key 'lock:payments:{7}': not acquired, held elsewhere")
				.doesNotContain("127.0.0.1")
				.doesNotContain("of 3 nodes");
			assertThat(output).contains("quorumlock: answered 423 Locked: lock 'payments' key 'lock:payments:{7}': "
					+ "not acquired, held elsewhere: acquired 0 of 3 nodes, quorum 2");
		});
	}

	@Test
	void runWhenAKeyEvaluatesToNullOrEmptyShouldAnswer400NamingTheLockAndTheExpression(CapturedOutput output) {
		SeatController.runs.set(0);
		this.runner.withUserConfiguration(Seats.class).run((context) -> {
			MockMvc mvc = mvc(context);
			MvcResult missing = mvc.perform(post("/hold")).andReturn();
			assertThat(missing.getResponse().getStatus()).isEqualTo(400);
			assertThat(missing.getResponse().getContentType()).startsWith("application/problem+json");
			assertThat(missing.getResponse().getContentAsString()).contains("\"title\":\"Lock key unusable\"")
				.contains("lock 'seats': key \\\"#seat\\\" evaluated to null; nothing was locked and nothing was done")
				.doesNotContain("SeatController");
			MvcResult empty = mvc.perform(post("/hold?seat=")).andReturn();
			assertThat(empty.getResponse().getStatus()).isEqualTo(400);
			assertThat(empty.getResponse().getContentAsString())
				.contains("lock 'seats': key \\\"#seat\\\" evaluated to an empty string");
			MvcResult missingOnTheWay = mvc.perform(post("/hold-for")).andReturn();
			assertThat(missingOnTheWay.getResponse().getStatus()).as("a null on the way to the key").isEqualTo(400);
			assertThat(missingOnTheWay.getResponse().getContentAsString())
				.contains("lock 'SeatController.holdFor': key \\\"#customer.trim()\\\" could not be evaluated");
			MvcResult codeMistake = mvc.perform(post("/hold-badly?seat=7")).andReturn();
			assertThat(codeMistake.getResponse().getStatus()).as("an expression no request can satisfy").isEqualTo(500);
			assertThat(codeMistake.getResponse().getContentAsString())
				.contains("lock 'seats': the key expression could not be evaluated")
				.doesNotContain("noSuchProperty");
			assertThat(mvc.perform(post("/hold?seat=7")).andReturn().getResponse().getContentAsString())
				.isEqualTo("held 7");
			assertThat(SeatController.runs).as("runs of the guarded methods").hasValue(1);
			assertThat(output).contains("quorumlock: answered 400 Bad Request: @DistributedLock on "
					+ "SeatController.hold(String): key \"#seat\" evaluated to null; the method did not run");
		});
	}

	@Test
	void runWithTheApplicationsOwnHandlersShouldLetThemWin() {
		for (RedisServer node : redis.nodes()) {
			node.call("SET", "lock:payments:{8}", "another-holder", "PX", "60000");
		}
		this.runner.withUserConfiguration(OwnHandlers.class).run((context) -> {
			MockMvc mvc = mvc(context);
			MvcResult contended = mvc.perform(post("/own/8")).andReturn();
			assertThat(contended.getResponse().getStatus()).as("the controller's own handler").isEqualTo(409);
			assertThat(contended.getResponse().getContentAsString()).isEqualTo("busy, try later");
			redis.node(1).kill();
			redis.node(2).kill();
			MvcResult unavailable = await().atMost(Duration.ofSeconds(20))
				.until(() -> mvc.perform(post("/pay/9")).andReturn(),
						(answer) -> answer.getResponse().getStatus() != 200);
			assertThat(unavailable.getResponse().getStatus()).as("the application's advice").isEqualTo(418);
			assertThat(unavailable.getResponse().getContentAsString()).isEqualTo("our own answer");
		});
	}

	private static MockMvc mvc(WebApplicationContext context) {
		return MockMvcBuilders.webAppContextSetup(context).build();
	}

	private static int count(String text, String part) {
		return text.split(java.util.regex.Pattern.quote(part), -1).length - 1;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableWebMvc
	static class Payments {

		@Bean
		PaymentController paymentController(DistributedLockRegistry locks) {
			return new PaymentController(locks);
		}

	}

	@RestController
	static class PaymentController {

		private final DistributedLockRegistry locks;

		PaymentController(DistributedLockRegistry locks) {
			this.locks = locks;
		}

		@PostMapping("/pay/{id}")
		String pay(@PathVariable("id") String id) {
			try (Lease lease = this.locks.acquire(LockRequest.of(id).name("payments"))) {
				return "paid";
			}
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableWebMvc
	static class Seats {

		@Bean
		SeatController seatController() {
			return new SeatController();
		}

	}

	@RestController
	static class SeatController {

		static final AtomicInteger runs = new AtomicInteger();

		@PostMapping("/hold")
		@DistributedLock(name = "seats", key = "#seat")
		public String hold(@RequestParam(name = "seat", required = false) String seat) {
			runs.incrementAndGet();
			return "held " + seat;
		}

		@PostMapping("/hold-for")
		@DistributedLock(key = "#customer.trim()")
		public String holdFor(@RequestParam(name = "customer", required = false) String customer) {
			runs.incrementAndGet();
			return "held for " + customer;
		}

		@PostMapping("/hold-badly")
		@DistributedLock(name = "seats", key = "#seat.noSuchProperty")
		public String holdBadly(@RequestParam(name = "seat", required = false) String seat) {
			runs.incrementAndGet();
			return "held " + seat;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnHandlers {

		@Bean
		OwnAdvice ownAdvice() {
			return new OwnAdvice();
		}

		@Bean
		OwnController ownController(DistributedLockRegistry locks) {
			return new OwnController(locks);
		}

	}

	@RestControllerAdvice
	static class OwnAdvice {

		@ExceptionHandler(QuorumUnavailableException.class)
		ResponseEntity<String> unavailable(QuorumUnavailableException ex) {
			return ResponseEntity.status(HttpStatus.I_AM_A_TEAPOT).body("our own answer");
		}

	}

	@RestController
	static class OwnController {

		private final DistributedLockRegistry locks;

		OwnController(DistributedLockRegistry locks) {
			this.locks = locks;
		}

		@PostMapping("/own/{id}")
		String pay(@PathVariable("id") String id) {
			try (Lease lease = this.locks.acquire(LockRequest.of(id).name("payments"))) {
				return "paid";
			}
		}

		@ExceptionHandler(LockNotAcquiredException.class)
		ResponseEntity<String> busy(LockNotAcquiredException ex) {
			return ResponseEntity.status(HttpStatus.CONFLICT).body("busy, try later");
		}

	}

}
