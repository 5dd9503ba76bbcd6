module Main (main) where

import Shapes

main :: IO ()
main = do
  let shapes = [Square 2, Circle 1]
  putStrLn ("largest first: " ++ show (maximum (map area shapes)))
  putStrLn ("smallest side: " ++ show (minimum [s | Square s <- filter isRect shapes]))
  where
    isRect (Rect _ _) = True
    isRect _ = False
