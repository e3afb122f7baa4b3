package io.quorumlock.sample.orders;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.jdbc.support.KeyHolder;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.annotation.Transactional;

/**
 * Orders and payments in the database ({@code schema.sql}), with fenced writes.
 */
@Repository
public class OrderStore {

	private final JdbcTemplate jdbc;

	/**
	 * Create the store.
	 * @param jdbc the JDBC template
	 */
	public OrderStore(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * Create an order, or return the existing one with that id.
	 * @param id the order id
	 * @param amountCents the amount, in cents
	 * @return the order
	 */
	public Order create(String id, long amountCents) {
		try {
			this.jdbc.update("insert into orders (id, amount_cents, status, last_fencing_token) values (?, ?, ?, 0)",
					id, amountCents, Order.NEW);
		}
		catch (DuplicateKeyException ex) {
			// created before: PUT is idempotent
		}
		return find(id).orElseThrow(() -> new OrderNotFoundException(id));
	}

	/**
	 * Find an order.
	 * @param id the order id
	 * @return the order, if it exists
	 */
	public Optional<Order> find(String id) {
		return this.jdbc
			.query("select id, amount_cents, status, last_fencing_token from orders where id = ?",
					(rs, row) -> new Order(rs.getString(1), rs.getLong(2), rs.getString(3), rs.getLong(4)), id)
			.stream()
			.findFirst();
	}

	/**
	 * The payments of an order, oldest first.
	 * @param orderId the order id
	 * @return its payments (more than one would be a double charge)
	 */
	public List<Payment> payments(String orderId) {
		return this.jdbc.query(
				"select id, order_id, amount_cents, fencing_token, paid_at from payment where order_id = ? order by id",
				OrderStore::payment, orderId);
	}

	/**
	 * Mark the order paid and record the payment, in one transaction, if and only if
	 * {@code fencingToken} is greater than the last token the order was written with:
	 * {@code UPDATE orders SET ..., last_fencing_token = ? WHERE id = ? AND last_fencing_token < ?}.
	 * @param orderId the order id
	 * @param amountCents the amount charged
	 * @param fencingToken the fencing token of the writer's lease
	 * @return the new payment
	 * @throws StaleFencingTokenException if the token is not greater than the last one
	 * @throws OrderNotFoundException if there is no such order
	 */
	@Transactional
	public Payment recordPayment(String orderId, long amountCents, long fencingToken) {
		int updated = this.jdbc.update(
				"update orders set status = ?, last_fencing_token = ? where id = ? and last_fencing_token < ?",
				Order.PAID, fencingToken, orderId, fencingToken);
		if (updated == 0) {
			Order order = find(orderId).orElseThrow(() -> new OrderNotFoundException(orderId));
			throw new StaleFencingTokenException(orderId, fencingToken, order.lastFencingToken());
		}
		Instant now = Instant.now();
		KeyHolder keys = new GeneratedKeyHolder();
		this.jdbc.update((connection) -> {
			PreparedStatement insert = connection.prepareStatement(
					"insert into payment (order_id, amount_cents, fencing_token, paid_at) values (?, ?, ?, ?)",
					new String[] { "id" });
			insert.setString(1, orderId);
			insert.setLong(2, amountCents);
			insert.setLong(3, fencingToken);
			insert.setTimestamp(4, Timestamp.from(now));
			return insert;
		}, keys);
		Number id = keys.getKey();
		return new Payment((id != null) ? id.longValue() : -1, orderId, amountCents, fencingToken, now);
	}

	private static Payment payment(ResultSet rs, int row) throws SQLException {
		return new Payment(rs.getLong(1), rs.getString(2), rs.getLong(3), rs.getLong(4),
				rs.getTimestamp(5).toInstant());
	}

}
