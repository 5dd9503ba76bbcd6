module Main (main) where

import Control.Monad (unless)
import System.Exit (exitFailure)
import Shapes
import Report

check :: String -> Bool -> IO Bool
check name ok = do
  putStrLn ((if ok then "PASS " else "FAIL ") ++ name)
  return ok

main :: IO ()
main = do
  results <- sequence
    [ check "area of a 2x3 rect is 6" (area (Rect 2 3) == 6)
    , check "perimeter of a square of 2 is 8" (perimeter (Square 2) == 8)
    , check "scale doubles a circle" (scale 2 (Circle 1) == Circle 2)
    , check "total area of two squares" (totalArea [Square 1, Square 2] == 5)
    ]
  let failed = length (filter not results)
  putStrLn (show (length results) ++ " checks, " ++ show failed ++ " failed")
  unless (failed == 0) exitFailure
