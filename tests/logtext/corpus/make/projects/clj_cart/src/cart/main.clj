(ns cart.main
  (:require [cart.core :as c]))

(defn -main [& args]
  (let [lines [{:qty 2 :price 450} {:qty 1 :price 1999}]
        total (c/cart-total lines)
        per-item (quot total (count (filter #(> (:qty %) 5) lines)))]
    (println "total" total "per bulk item" per-item)))

(-main)
