import System.Environment (getArgs)

main :: IO ()
main = do
  args <- getArgs
  let names = filter (/= "") args
  putStrLn ("first shape: " ++ head names)
