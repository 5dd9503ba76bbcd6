(ns cart.core)

(defn line-total [{:keys [qty price]}]
  (* qty price))

(defn cart-total [lines]
  (reduce + 0 (map line-total lines)))

(defn apply-discount [total pct]
  (- total (quot (* total pct) 100)))
