import qualified Data.Map as Map

prices :: Map.Map String Int
prices = Map.fromList [("apple", 3), ("pear", 4)]

main :: IO ()
main = do
  let basket = ["apple", "pear", "plum"]
  mapM_ (\item -> putStrLn (item ++ ": " ++ show (prices Map.! item))) basket
