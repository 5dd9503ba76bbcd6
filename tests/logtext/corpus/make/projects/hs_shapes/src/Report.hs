module Report (summary, totalArea) where

import Data.List (sortOn)
import Shapes

totalArea :: [Shape] -> Double
totalArea = sum . map area

summary :: [Shape] -> String
summary shapes =
  "shapes: " ++ show (length shapes) ++ ", total area: " ++ show (totalArea shapes)
