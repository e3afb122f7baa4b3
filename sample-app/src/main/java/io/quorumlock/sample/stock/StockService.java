package io.quorumlock.sample.stock;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;

import io.quorumlock.DistributedLock;
import io.quorumlock.sample.ProcessingDelay;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Stock levels and reservations. A reservation reads the stock of every SKU, calls the
 * (slow) warehouse system, then writes the new levels: without a lock two overlapping
 * reservations would both read the same level and one decrement would be lost. The key
 * {@code #request.skus} is a collection, so the lock covers every SKU of the request, all
 * or nothing, taken in sorted order so overlapping requests cannot deadlock; the
 * {@code stock} name keeps these keys apart from the orders' ({@code lock:stock:{sku}}).
 */
@Service
public class StockService {

	private final JdbcTemplate jdbc;

	private final TransactionTemplate transactions;

	private final ProcessingDelay warehouse;

	/**
	 * Create the service.
	 * @param jdbc the JDBC template
	 * @param transactions a transaction template
	 * @param warehouse the simulated warehouse call
	 */
	public StockService(JdbcTemplate jdbc, TransactionTemplate transactions, ProcessingDelay warehouse) {
		this.jdbc = jdbc;
		this.transactions = transactions;
		this.warehouse = warehouse;
	}

	/**
	 * Set the stock level of one SKU, under the same lock a reservation of it takes.
	 * @param sku the SKU
	 * @param available the new level
	 */
	@DistributedLock(key = "#sku", name = "stock", lease = "30s")
	public void setAvailable(String sku, int available) {
		if (available < 0) {
			throw new IllegalArgumentException("SKU '" + sku + "': available must not be negative, got " + available);
		}
		if (this.jdbc.update("update stock set available = ? where sku = ?", available, sku) == 0) {
			this.jdbc.update("insert into stock (sku, available) values (?, ?)", sku, available);
		}
	}

	/**
	 * The stock level of one SKU.
	 * @param sku the SKU
	 * @return the level
	 * @throws NoSuchElementException if the SKU is unknown
	 */
	public int available(String sku) {
		List<Integer> levels = this.jdbc.queryForList("select available from stock where sku = ?", Integer.class, sku);
		if (levels.isEmpty()) {
			throw new NoSuchElementException("SKU '" + sku + "' is unknown; set its stock with PUT /stock/" + sku);
		}
		return levels.get(0);
	}

	/**
	 * Reserve {@code quantity} of every SKU of the request, or nothing.
	 * @param request the reservation
	 * @return the reservation and the stock left
	 * @throws InsufficientStockException if a SKU has too little stock
	 */
	@DistributedLock(key = "#request.skus", name = "stock", lease = "30s")
	public Reservation reserve(ReservationRequest request) {
		if (request.quantity() <= 0) {
			throw new IllegalArgumentException(
					"reservation '" + request.reference() + "': quantity must be positive, got " + request.quantity());
		}
		Map<String, Integer> levels = new LinkedHashMap<>();
		for (String sku : request.skus()) {
			int available = available(sku);
			if (available < request.quantity()) {
				throw new InsufficientStockException(sku, available, request.quantity());
			}
			levels.put(sku, available - request.quantity());
		}
		this.warehouse.simulate(request.reference());
		this.transactions.executeWithoutResult((status) -> {
			// absolute values computed from the read
			// above: a lost update without the lock
			levels.forEach((sku, left) -> this.jdbc.update("update stock set available = ? where sku = ?", left, sku));
			levels.keySet()
				.forEach((sku) -> this.jdbc.update(
						"insert into stock_reservation (reference, sku, quantity) values (?, ?, ?)",
						request.reference(), sku, request.quantity()));
		});
		return new Reservation(request.reference(), request.quantity(), levels);
	}

}
