data class Order(val id: String, val lines: List<Line>)
data class Line(val sku: String, val qty: Int, val unitCents: Long)

fun Order.totalCents(): Long = lines.fold(0L) { acc, l -> acc + l.qty * l.unitCents }

fun parseOrder(text: String): Order {
    val parts = text.split(";")
    val lines = parts.drop(1).map {
        val (sku, qty, price) = it.split(",")
        Line(sku.trim(), qty.trim().toInt(), price.trim().toLong())
    }
    return Order(parts[0].trim(), lines)
}

fun main(args: Array<String>) {
    val input = if (args.isNotEmpty()) args[0] else "A-17; X1, 2, 450; Y2, 1, 1999"
    val order = parseOrder(input)
    println("order ${order.id}: ${order.lines.size} lines, total ${order.totalCents()} cents")
}
