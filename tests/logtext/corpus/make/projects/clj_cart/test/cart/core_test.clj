(ns cart.core-test
  (:require [clojure.test :refer [deftest is testing run-tests]]
            [cart.core :as c]))

(deftest totals
  (testing "a line is qty times price"
    (is (= 600 (c/line-total {:qty 3 :price 200}))))
  (testing "a cart sums its lines"
    (is (= 700 (c/cart-total [{:qty 3 :price 200} {:qty 1 :price 100}])))))

(deftest discounts
  (is (= 900 (c/apply-discount 1000 10)))
  (is (= 1000 (c/apply-discount 1000 0))))

(let [{:keys [fail error]} (run-tests 'cart.core-test)]
  (System/exit (if (zero? (+ fail error)) 0 1)))
