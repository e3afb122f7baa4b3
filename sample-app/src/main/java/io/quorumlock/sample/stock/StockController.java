package io.quorumlock.sample.stock;

import java.util.Map;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Stock over HTTP: {@code PUT /stock/{sku}?available=10}, {@code GET /stock/{sku}}, and
 * {@code POST /stock/reservations} with
 * {@code {"reference":"order-7","skus":["apple","pear"],"quantity":1}} (200 and the stock
 * left, or 409 when a SKU is short).
 */
@RestController
@RequestMapping("/stock")
public class StockController {

	private final StockService stock;

	/**
	 * Create the controller.
	 * @param stock the stock service
	 */
	public StockController(StockService stock) {
		this.stock = stock;
	}

	/**
	 * Set the stock of a SKU.
	 * @param sku the SKU
	 * @param available the new level
	 * @return the level
	 */
	@PutMapping("/{sku}")
	public Map<String, Integer> set(@PathVariable String sku, @RequestParam int available) {
		this.stock.setAvailable(sku, available);
		return Map.of(sku, this.stock.available(sku));
	}

	/**
	 * Read the stock of a SKU.
	 * @param sku the SKU
	 * @return the level
	 */
	@GetMapping("/{sku}")
	public Map<String, Integer> get(@PathVariable String sku) {
		return Map.of(sku, this.stock.available(sku));
	}

	/**
	 * Reserve several SKUs at once.
	 * @param request the reservation
	 * @return the reservation and the stock left
	 */
	@PostMapping("/reservations")
	public Reservation reserve(@RequestBody ReservationRequest request) {
		return this.stock.reserve(request);
	}

}
